package io.homa4j.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The calibration reads the rack's own share of the machine from the rack script's cpu.csv. */
class RackCalibrationShareTest {
    private static final String HEADER = "protocol,machine_cpu_busy_pct,user_pct,system_pct,softirq_pct,steal_pct,"
            + "rack_jvm_cpu_seconds,rack_jvm_pct,outside_rack_pct,window_seconds";

    @Test
    void theRacksJvmsAndPacketProcessingCountAndTheRestOfTheMachineDoesNot(@TempDir Path tmp) throws IOException {
        Path csv = tmp.resolve("cpu.csv");
        Files.write(csv, List.of(HEADER, "homa,100,82,17,1,0,2.2,16,83,7"));
        assertEquals(17, RackComparison.rackSharePct(csv, "homa"));
    }

    @Test
    void aMissingRowOrBadNumberIsAnErrorNamingTheFile(@TempDir Path tmp) throws IOException {
        Path csv = tmp.resolve("cpu.csv");
        Files.write(csv, List.of(HEADER, "tcp,50,40,9,1,0,2.2,30,19,7"));
        assertThrows(IOException.class, () -> RackComparison.rackSharePct(csv, "homa"));
        Files.write(csv, List.of(HEADER, "homa,50,40,9,x,0,2.2,30,19,7"));
        IOException e = assertThrows(IOException.class, () -> RackComparison.rackSharePct(csv, "homa"));
        assertEquals(true, e.getMessage().contains("cpu.csv"));
    }
}
