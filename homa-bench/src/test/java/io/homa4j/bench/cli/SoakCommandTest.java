package io.homa4j.bench.cli;

import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A few seconds of the soak command: under 5% loss every call ends byte-exact or typed, none is lost. */
class SoakCommandTest {

    @Test
    void shortSoakUnderLossLosesNoCallAndPrintsProgressWithMemory() {
        CliTest.Result r = CliTest.run("soak", "--minutes", "0.05", "--progress-seconds", "1", "--concurrency", "4",
                "--max-message", "200000", "--seed", "7", "--drain-seconds", "60");
        assertEquals(0, r.code(), r.out() + r.err());
        Matcher m = Pattern.compile("started (\\d+)  completed byte-exact (\\d+)  failed typed (\\d+) .*"
                + "mismatched 0  untyped 0  lost 0").matcher(r.out());
        assertTrue(m.find(), r.out());
        long started = Long.parseLong(m.group(1));
        long completed = Long.parseLong(m.group(2));
        assertTrue(started >= 20, "the soak made calls: " + r.out());
        assertEquals(started, completed + Long.parseLong(m.group(3)), "every call has one outcome");
        assertTrue(completed >= started * 0.95, r.out());
        long progressLines = r.err().lines().filter(l -> l.startsWith("[soak]") && l.contains("live after GC")
                && l.contains("direct: netty")).count();
        assertTrue(progressLines >= 3, "progress lines with memory gauges:\n" + r.err());
        assertTrue(r.err().matches("(?s).*loss filter dropped [1-9]\\d* datagrams out, [1-9]\\d* in.*"),
                "the filter really dropped both ways:\n" + r.err());
    }

    @Test
    void aSoakWithANeverReplyingHandlerAndASlowMemoryAttackEndsEveryCallAndReportsTheAttack() {
        CliTest.Result r = CliTest.run("soak", "--minutes", "0.05", "--progress-seconds", "1", "--concurrency", "4",
                "--max-message", "20000", "--seed", "8", "--drain-seconds", "60", "--loss", "0.01",
                "--handler", "never-reply", "--attack-rate", "20", "--attack-ports", "4");
        assertEquals(0, r.code(), r.out() + r.err());
        Matcher ended = Pattern.compile("calls ended vs started: (\\d+) / (\\d+)").matcher(r.out());
        assertTrue(ended.find(), r.out());
        assertEquals(ended.group(2), ended.group(1), "every call ended");
        assertTrue(r.out().matches("(?s).*failed typed [1-9]\\d* \\{[^}]*DEADLINE_EXCEEDED=.*"),
                "the unanswered tenth of the calls ended by their deadline:\n" + r.out());
        Matcher attack = Pattern.compile("attack: (\\d+) forged packets \\((\\d+) B on the wire\\), (\\d+) B"
                + " reflected.* high-water (\\d+) B").matcher(r.out());
        assertTrue(attack.find(), r.out());
        long forged = Long.parseLong(attack.group(1));
        assertTrue(forged >= 30, "about 20 forged packets a second for 3 s: " + r.out());
        assertTrue(Long.parseLong(attack.group(3)) <= 3 * Long.parseLong(attack.group(2)),
                "at most 3x reflected in bytes: " + r.out());
    }
}
