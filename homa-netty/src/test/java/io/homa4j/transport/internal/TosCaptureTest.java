package io.homa4j.transport.internal;

import io.homa4j.core.HomaConfig;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Captures the endpoint's packets on loopback with tcpdump and checks that each priority level leaves with its
 * level's TOS byte ({@code dscpForLevel(level) << 2}). Skips, saying why, without tcpdump or capture rights.
 */
class TosCaptureTest {
    private static final Pattern LINE = Pattern.compile("tos (0x[0-9a-f]+).*?UDP, length (\\d+)", Pattern.DOTALL);

    @ParameterizedTest
    @EnumSource(UdpTransport.Kind.class)
    void everyLevelLeavesWithItsDscp(UdpTransport.Kind kind) throws Exception {
        Path tcpdump = Path.of("/usr/bin/tcpdump");
        Assumptions.assumeTrue(Files.isExecutable(tcpdump) || Files.isExecutable(Path.of("/usr/sbin/tcpdump")),
                "tcpdump is not installed (apt-get install -y tcpdump); TOS marking not verified by capture");
        HomaConfig config = HomaConfig.defaults();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, UdpTransport.ioHandlerFactory(kind));
        try (DatagramSocket receiver = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            receiver.setSoTimeout(10_000);
            int port = receiver.getLocalPort();
            Process capture = new ProcessBuilder(Files.isExecutable(tcpdump) ? tcpdump.toString() : "/usr/sbin/tcpdump",
                    "-i", "lo", "-n", "-v", "-l", "--immediate-mode", "-c", "8", "udp and dst port " + port)
                    .start();
            try {
                BufferedReader err = new BufferedReader(new InputStreamReader(capture.getErrorStream(),
                        StandardCharsets.UTF_8));
                String first = err.readLine(); // "listening on lo, ..." once the capture is armed
                Assumptions.assumeTrue(first != null && first.contains("listening"),
                        "tcpdump cannot capture here (needs root or CAP_NET_RAW): " + first);

                EventLoop loop = group.next();
                TransportCounters counters = new TransportCounters();
                HomaInboundHandler dropAll = new HomaInboundHandler(new EngineDriver(loop, System::nanoTime),
                        counters, config.maxUdpPayload());
                UdpTransport transport = UdpTransport.bind(kind, loop, InetAddress.getLoopbackAddress(), 0, config,
                        1 << 20, dropAll);
                try {
                    InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
                    loop.submit(() -> {
                        DatagramSink sink = new DatagramSink(transport.channelByLevel(), counters,
                                null);
                        for (int level = 0; level < 8; level++) {
                            sink.send(to, level, Unpooled.directBuffer().writeZero(100 + level));
                        }
                        sink.flush();
                    }).sync();
                    byte[] buf = new byte[2048];
                    for (int i = 0; i < 8; i++) {
                        receiver.receive(new java.net.DatagramPacket(buf, buf.length));
                    }
                    assertTrue(capture.waitFor(10, TimeUnit.SECONDS), "tcpdump saw fewer than 8 packets");
                    String out = new String(capture.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    Map<Integer, Integer> tosByLevel = new HashMap<>();
                    Matcher m = LINE.matcher(out);
                    while (m.find()) {
                        tosByLevel.put(Integer.parseInt(m.group(2)) - 100, Integer.decode(m.group(1)));
                    }
                    assertEquals(8, tosByLevel.size(), out);
                    for (int level = 0; level < 8; level++) {
                        int expected = transport.perLevelTos() ? config.dscpForLevel(level) << 2
                                : config.dscpForLevel(7) << 2;
                        assertEquals(expected, tosByLevel.get(level), "level " + level + " in\n" + out);
                    }
                    System.out.println(kind + " capture:\n" + out);
                } finally {
                    transport.close();
                }
            } finally {
                capture.destroy();
                capture.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (IOException noTool) {
            Assumptions.abort("cannot run tcpdump: " + noTool);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
