package io.homa4j.core.internal.rpc;

import java.net.InetSocketAddress;

/**
 * A server RPC is identified by the client's address and the client's id: ids are only unique per client.
 *
 * <p>Keys stored in maps never change. {@link ServerCalls} also keeps one key of its own as a lookup probe,
 * re-aimed with {@link #aim} before each map lookup and never stored, so finding an RPC allocates nothing (a new
 * key per lookup was an allocation per DATA packet whenever packets of several messages interleave).
 */
final class ServerKey {
    private InetSocketAddress client;
    private long clientId;

    public ServerKey(InetSocketAddress client, long clientId) {
        this.client = client;
        this.clientId = clientId;
    }

    /** A probe for lookups only; {@link #aim} it before use. */
    static ServerKey probe() {
        return new ServerKey(null, 0);
    }

    /** Re-aims this probe (never a stored key) at another RPC; returns it. */
    ServerKey aim(InetSocketAddress newClient, long newClientId) {
        this.client = newClient;
        this.clientId = newClientId;
        return this;
    }

    public InetSocketAddress client() {
        return client;
    }

    public long clientId() {
        return clientId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ServerKey k && clientId == k.clientId && client.equals(k.client);
    }

    @Override
    public int hashCode() {
        return 31 * client.hashCode() + Long.hashCode(clientId);
    }

    @Override
    public String toString() {
        return "ServerKey[client=" + client + ", clientId=" + clientId + "]";
    }
}
