package io.homa4j;

import io.homa4j.core.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Issue 16.7: a second endpoint binding a port already in use silently took part of its traffic (SO_REUSEPORT).
 * Now it is refused, unless it asks to join the port.
 */
class PortSharingTest {
    private final OpenedEndpoints endpoints = new OpenedEndpoints();

    @AfterEach
    void closeAll() {
        endpoints.closeAll();
    }

    @Test
    void aPortInUseIsRefusedUnlessJoiningIsAskedFor() throws Exception {
        HomaEndpoint first = endpoints.add(HomaEndpoint.builder().build());
        first.serve((ctx, request) -> ctx.reply(request.retain()));
        int port = first.localAddress().getPort();

        HomaException refused = assertThrows(HomaException.class, () -> endpoints.add(HomaEndpoint.builder()
                .port(port).build()));
        assertEquals(ErrorCode.UNAVAILABLE, refused.code());

        HomaEndpoint joined = endpoints.add(HomaEndpoint.builder().port(port).joinExistingPort(true).build());
        joined.serve((ctx, request) -> ctx.reply(request.retain()));
        HomaEndpoint client = endpoints.add(HomaEndpoint.builder().build());
        assertArrayEquals(new byte[] {1, 2}, client.call(first.localAddress(), new byte[] {1, 2})
                .get(30, TimeUnit.SECONDS), "whichever of the two the kernel picks, it answers");
    }

    @Test
    void aFreePortIsBoundAsBefore() {
        HomaEndpoint probe = HomaEndpoint.builder().build();
        int port = probe.localAddress().getPort();
        probe.close();
        endpoints.add(HomaEndpoint.builder().port(port).build()); // freed: bound again, as a restarted server does
    }
}
