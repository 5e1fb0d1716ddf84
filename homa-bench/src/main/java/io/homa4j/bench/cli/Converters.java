package io.homa4j.bench.cli;

import io.homa4j.bench.workload.Workload;
import io.homa4j.bench.workload.Workloads;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;

/** The option types picocli does not convert itself, each with the text of its own error. */
public final class Converters {
    private Converters() {
    }

    /** {@code w1..w5} or a length in bytes. */
    public static final class WorkloadConverter implements ITypeConverter<Workload> {
        @Override
        public Workload convert(String value) {
            try {
                return Workloads.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code host:port}, IPv6 as {@code [addr]:port}. */
    public static final class EndpointConverter implements ITypeConverter<InetSocketAddress> {
        @Override
        public InetSocketAddress convert(String value) {
            String s = value.trim();
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || colon == s.length() - 1) {
                throw new TypeConversionException("needs host:port entries: " + value);
            }
            String host = s.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(s.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new TypeConversionException("bad port: " + value);
            }
            if (port < 1 || port > 65_535) {
                throw new TypeConversionException("port out of range: " + value);
            }
            try {
                return new InetSocketAddress(InetAddress.getByName(host), port);
            } catch (UnknownHostException e) {
                throw new TypeConversionException("unknown host: " + value);
            }
        }
    }

    /** A path that is not empty (a list such as {@code a,,b} has an empty entry). */
    public static final class NonEmptyPath implements ITypeConverter<Path> {
        @Override
        public Path convert(String value) {
            if (value.isBlank()) {
                throw new TypeConversionException("empty entry");
            }
            return Path.of(value.trim());
        }
    }

    /** {@code host:port} as an argument: IPv6 in brackets. */
    public static String endpoint(InetSocketAddress address) {
        String host = address.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    /** Nanoseconds as seconds, exactly: {@code 1500000000} is {@code 1.5}. */
    public static String seconds(long nanos) {
        return BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString();
    }

    /** Seconds as nanoseconds, rounded, so that {@link #seconds} reads back as the same nanoseconds. */
    public static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }

    /** A number as an argument: integral values without a fraction. */
    public static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
