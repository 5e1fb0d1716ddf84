/**
 * Homa's packet formats (docs/protocol.md): {@link io.homa4j.core.wire.PacketType}, which the engine's metrics
 * count packets by, and the flyweights, encoder and decoder that read and write the headers.
 *
 * <p>Only {@link io.homa4j.core.wire.PacketType} is application API. The header flyweights, the encoder and the
 * decoder are {@link io.homa4j.core.Unstable}: public so that tests and tools can forge and inspect packets, and
 * free to change in any release.
 */
package io.homa4j.core.wire;
