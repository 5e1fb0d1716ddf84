package io.homa4j.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * Two protocols a comparison sets side by side: a Homa one and the TCP one it is measured against. The ratios are
 * {@code tcp / homa} (above 1: the Homa side is faster).
 *
 * @param homa the Homa side's protocol id ({@code homa}, {@code grpc-homa})
 * @param tcp  the TCP side's protocol id ({@code tcp}, {@code grpc-tcp})
 */
public record ProtocolPair(String homa, String tcp) {
    /** Homa4J's endpoints against length-prefixed frames over Netty TCP. */
    public static final ProtocolPair HOMA_TCP = new ProtocolPair("homa", "tcp");
    /** gRPC-java over Homa against gRPC-java over its Netty HTTP/2 transport. */
    public static final ProtocolPair GRPC = new ProtocolPair("grpc-homa", "grpc-tcp");

    /** The pairs with both sides in {@code results}, {@link #HOMA_TCP} first. */
    public static List<ProtocolPair> present(ResultSet results) {
        List<ProtocolPair> pairs = new ArrayList<>(2);
        for (ProtocolPair pair : List.of(HOMA_TCP, GRPC)) {
            if (results.protocols().contains(pair.homa) && results.protocols().contains(pair.tcp)) {
                pairs.add(pair);
            }
        }
        return pairs;
    }

    /** "tcp/homa" or "grpc-tcp/grpc-homa", as the ratios are labelled. */
    public String ratioName() {
        return tcp + "/" + homa;
    }
}
