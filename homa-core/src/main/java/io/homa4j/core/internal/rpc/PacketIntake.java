package io.homa4j.core.internal.rpc;

import io.homa4j.core.HomaConfig;
import io.homa4j.core.internal.metrics.Metrics;
import io.homa4j.core.internal.outgoing.OutgoingMessage;
import io.homa4j.core.internal.outgoing.Transmitter;
import io.homa4j.core.internal.peer.Peer;
import io.homa4j.core.internal.peer.PeerTable;
import io.homa4j.core.internal.priority.UnscheduledCutoffs;
import io.homa4j.core.metrics.DropReason;
import io.homa4j.core.wire.AckHeader;
import io.homa4j.core.wire.CommonHeader;
import io.homa4j.core.wire.CutoffsHeader;
import io.homa4j.core.wire.DataHeader;
import io.homa4j.core.wire.GrantHeader;
import io.homa4j.core.wire.PacketDecoder;
import io.homa4j.core.wire.PacketType;
import io.homa4j.core.wire.ResendHeader;
import io.homa4j.core.wire.RpcUnknownHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;

/**
 * The one place a received packet is checked and handed to the half it is for: validates the fixed header, finds
 * the sender's peer entry once, and dispatches by type to {@link ClientCalls}, {@link ServerCalls}, the
 * {@link Receiver} and the {@link Transmitter}. A packet's contents never make it throw: bad packets are dropped
 * and counted, and an exception from a bug is contained to its packet. Engine thread only.
 */
public final class PacketIntake {
    private static final Logger log = LoggerFactory.getLogger(PacketIntake.class);

    private final HomaConfig config;
    private final Metrics metrics;
    private final PacketVerdict verdict;
    private final PeerTable peers;
    private final EngineClock clock;
    private final Receiver receiver;
    private final Transmitter transmitter;
    private final ClientCalls clients;
    private final ServerCalls servers;
    /**
     * A heap copy of the received packet's fixed header, which the flyweights read: the packet itself may be
     * tracked by Netty's leak detector, which records every access, so it is touched once for the copy.
     */
    private final ByteBuf headerCopy = Unpooled.wrappedBuffer(new byte[PacketDecoder.MAX_FIXED_HEADER]);
    private final CommonHeader common = new CommonHeader();
    private final DataHeader data = new DataHeader();
    private final GrantHeader grantHeader = new GrantHeader();
    private final ResendHeader resendHeader = new ResendHeader();
    private final RpcUnknownHeader unknownHeader = new RpcUnknownHeader();
    private final CutoffsHeader cutoffsHeader = new CutoffsHeader();
    private final AckHeader ackHeader = new AckHeader();
    private long packetsHandled;

    public PacketIntake(RpcHalf.Parts parts, Transmitter transmitter, ClientCalls clients, ServerCalls servers) {
        this.config = parts.config();
        this.metrics = parts.metrics();
        this.verdict = parts.verdict();
        this.peers = parts.peers();
        this.clock = parts.clock();
        this.receiver = parts.receiver();
        this.transmitter = transmitter;
        this.clients = clients;
        this.servers = servers;
    }

    /** Received packets that were processed (not dropped); with the drop counters this accounts for every packet. */
    public long packetsHandled() {
        return packetsHandled;
    }

    /**
     * Judges and dispatches the packet of {@code length} bytes at {@code index} of {@code buffer}; neither retains
     * nor releases the buffer. Grants and transmission are left to the caller. A closed engine drops every packet.
     */
    public void receive(InetSocketAddress from, ByteBuf buffer, int index, int length, long nowNanos,
                        boolean closed) {
        verdict.beginPacket();
        try {
            if (closed) {
                metrics.rawBytesIn(length);
                verdict.drop(DropReason.CLOSED);
                return;
            }
            buffer.getBytes(index, headerCopy, 0, Math.min(length, PacketDecoder.MAX_FIXED_HEADER));
            DropReason invalid = PacketDecoder.check(headerCopy, 0, length);
            if (invalid != null) {
                metrics.rawBytesIn(length);
                verdict.drop(invalid);
                return;
            }
            PacketType type = common.wrap(headerCopy, 0).type();
            metrics.packetIn(type, length);
            if (type == PacketType.PROBE) {
                return; // only its sender's kernel cares whether it arrives; counted, nothing else
            }
            // The one peer lookup of the packet: everything below gets the sender's entry (null: unknown yet).
            Peer sender = peers.get(from);
            if (sender != null) {
                sender.heard(nowNanos); // liveness for the abort rule (RpcSilence.liveAbortDue)
            }
            dispatch(from, sender, type, buffer, index);
        } catch (RuntimeException e) {
            // A bug, never packet contents: keep the endpoint alive, count it so tests catch it.
            log.error("internal error handling a packet from {}", from, e);
            verdict.drop(DropReason.INTERNAL_ERROR);
        } catch (OutOfMemoryError e) {
            // Direct memory ran out outside the places that expect it (IncomingMessage's buffers count their own
            // failures): the packet is lost, which the protocol repairs; the endpoint stays up.
            if (verdict.count(DropReason.ALLOCATION_FAILED) == 0) {
                log.warn("out of memory handling a packet from {} (counted as ALLOCATION_FAILED drops)", from, e);
            }
            verdict.drop(DropReason.ALLOCATION_FAILED);
        } finally {
            if (!verdict.dropped()) {
                packetsHandled++;
            }
        }
    }

    /**
     * Hands a valid packet to the side it is for: the low bit of its id tells who sent it. The packet starts at
     * {@code index} of {@code packet}, whose other bytes may be other packets of the same read.
     */
    private void dispatch(InetSocketAddress from, Peer sender, PacketType type, ByteBuf packet, int index) {
        long wireId = common.rpcId();
        boolean fromClient = RpcIds.fromClient(wireId);
        switch (type) {
            case DATA:
                data.wrap(headerCopy, 0);
                receiver.dataArrived(data.sentLevel(), DataHeader.LENGTH + data.segmentLength(), clock.now());
                if (sender != null) {
                    // before the RPC lookup: a packet that arrives after its message completed still timed the trip
                    sender.rtt().dataArrived(wireId, data.offset(), data.retransmit(), clock.now());
                }
                int payloadIndex = index + DataHeader.LENGTH;
                if (fromClient) {
                    servers.onRequestData(from, sender, wireId, data, packet, payloadIndex);
                } else {
                    clients.onResponseData(from, RpcIds.localId(wireId), data, packet, payloadIndex);
                }
                break;
            case GRANT: {
                grantHeader.wrap(headerCopy, 0);
                OutgoingMessage message = fromClient ? servers.responseFor(from, wireId)
                        : clients.requestFor(from, wireId);
                if (message != null) {
                    transmitter.grant(message, grantHeader.offset(),
                            Math.min(grantHeader.priority(), config.priorityLevels() - 1));
                }
                break;
            }
            case RESEND: {
                resendHeader.wrap(headerCopy, 0);
                int priority = Math.min(resendHeader.priority(), config.priorityLevels() - 1);
                if (fromClient) {
                    servers.onResend(from, wireId, resendHeader.offset(), resendHeader.length(), priority);
                } else {
                    clients.onResend(from, wireId, resendHeader.offset(), resendHeader.length(), priority);
                }
                break;
            }
            case RPC_UNKNOWN:
                if (fromClient) {
                    servers.onRpcUnknown(from, wireId);
                } else {
                    clients.onRpcUnknown(from, wireId, unknownHeader.wrap(headerCopy, 0).ageNanos());
                }
                break;
            case BUSY:
                if (fromClient) {
                    servers.onBusy(from, wireId);
                } else {
                    clients.onBusy(from, wireId);
                }
                break;
            case NEED_ACK:
                if (fromClient) {
                    verdict.drop(DropReason.MALFORMED); // only servers ask for acks
                } else {
                    clients.onNeedAck(from, sender, wireId);
                }
                break;
            case ACK:
                if (!fromClient) {
                    verdict.drop(DropReason.MALFORMED); // only clients acknowledge
                    break;
                }
                ackHeader.wrap(packet, index); // the ids lie beyond the fixed header
                for (int i = 0, n = ackHeader.count(); i < n; i++) {
                    servers.ack(from, ackHeader.ackedId(i));
                }
                break;
            case CUTOFFS:
                onCutoffs(sender, cutoffsHeader.wrap(headerCopy, 0));
                break;
            default:
                verdict.drop(DropReason.UNKNOWN_TYPE);
        }
    }

    private void onCutoffs(Peer peer, CutoffsHeader cutoffs) {
        if (peer == null) {
            verdict.drop(DropReason.UNKNOWN_RPC); // we never talked to it: nothing to use the cutoffs for
            return;
        }
        int[] byLevel = new int[CutoffsHeader.LEVELS];
        for (int level = 0; level < CutoffsHeader.LEVELS; level++) {
            byLevel[level] = cutoffs.cutoff(level);
        }
        UnscheduledCutoffs updated = new UnscheduledCutoffs(byLevel, cutoffs.cutoffsVersion());
        if (updated.version() != peer.cutoffs().version() || !updated.sameCutoffs(peer.cutoffs())) {
            peer.cutoffs(updated);
            metrics.cutoffsUpdated();
        }
    }
}
