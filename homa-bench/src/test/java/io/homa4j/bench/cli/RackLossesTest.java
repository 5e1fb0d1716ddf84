package io.homa4j.bench.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-repeat loss lines that compare prints from the rack script's losses.csv. */
class RackLossesTest {
    @Test
    void homaLineStatesRetransmittedShareAndTcpLineOnlyDrops(@TempDir Path tmp) throws Exception {
        Path csv = tmp.resolve("losses.csv");
        Files.write(csv, List.of(
                "protocol,switch_dropped,host_queue_dropped,udp_rcvbuf_errors,data_packets_out,retransmitted_packets",
                "homa,0,2,5,228753,129",
                "tcp,3448,0,0,,"));

        List<String> lines = CompareReport.rackLosses(2, csv);

        assertEquals(List.of(
                "repeat 2: homa: switch dropped 0 packets, hosts' egress queues 2, UDP receive buffers 5;"
                        + " Homa sent 129 of 228,753 DATA packets again (0.056%)",
                "repeat 2: tcp: switch dropped 3,448 packets, hosts' egress queues 0, UDP receive buffers 0"),
                lines);
    }

    @Test
    void missingFileOrNoDataGivesNoShareAndNoDivisionByZero(@TempDir Path tmp) throws Exception {
        assertTrue(CompareReport.rackLosses(1, tmp.resolve("absent.csv")).isEmpty());

        Path csv = tmp.resolve("losses.csv");
        Files.write(csv, List.of("protocol,switch_dropped,host_queue_dropped,udp_rcvbuf_errors,data_packets_out,"
                + "retransmitted_packets", "homa,0,0,0,0,0", "short,row"));
        assertEquals(List.of("repeat 1: homa: switch dropped 0 packets, hosts' egress queues 0, UDP receive buffers 0;"
                + " Homa sent 0 of 0 DATA packets again (0.000%)"), CompareReport.rackLosses(1, csv));
    }
}
