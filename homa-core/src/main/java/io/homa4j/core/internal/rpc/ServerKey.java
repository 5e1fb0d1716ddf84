package io.homa4j.core.internal.rpc;

import java.net.InetSocketAddress;

/** A server RPC is identified by the client's address and the client's id: ids are only unique per client. */
public record ServerKey(InetSocketAddress client, long clientId) {
}
