package io.homa4j.core.internal.incoming;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IncomingMessageTest {
    private static final int LENGTH = 1_000_000;
    private static final int SEGMENT = 1_432;
    /** A granted segment that arrives after a lost batch of the message's first bytes: 4 packets received. */
    private static final int RECEIVED = 4 * SEGMENT;
    private static final int GRANTED_OFFSET = 88 * SEGMENT;

    @Test
    void aSegmentFarAheadOfTheDataIsRefusedWhenNothingInvitedIt() {
        assertEquals(IncomingMessage.TOO_FAR_AHEAD,
                IncomingMessage.growthFor(LENGTH, RECEIVED, RECEIVED, 0, GRANTED_OFFSET, SEGMENT));
    }

    @Test
    void aSegmentOurGrantsInvitedIsKeptHoweverLittleArrivedBeforeIt() {
        int invited = RECEIVED + 500_000;
        long growth = IncomingMessage.growthFor(LENGTH, RECEIVED, RECEIVED, invited, GRANTED_OFFSET, SEGMENT);
        assertTrue(growth >= GRANTED_OFFSET + SEGMENT - RECEIVED, "room for the segment: " + growth);
        assertTrue(RECEIVED + growth <= invited, "never more than the grants invited: " + growth);
    }

    @Test
    void invitationsDoNotReachBeyondWhatWasGranted() {
        int invited = 50 * SEGMENT;
        assertEquals(IncomingMessage.TOO_FAR_AHEAD,
                IncomingMessage.growthFor(LENGTH, RECEIVED, RECEIVED, invited, GRANTED_OFFSET, SEGMENT));
    }

    @Test
    void theSendersClaimOfWhatItMaySendInvitesNothing() {
        // A first packet claiming the whole message as sendable unasked (a forged 'incoming') reserves no more
        // than the bytes it brings allow; only the grant scheduler's granted(offset) invites bytes ahead.
        IncomingMessage claimed = new IncomingMessage(null, LENGTH, false, LENGTH, 1);
        assertEquals(IncomingMessage.TOO_FAR_AHEAD, claimed.growthFor(GRANTED_OFFSET, SEGMENT));
        claimed.granted(GRANTED_OFFSET + SEGMENT);
        assertTrue(claimed.growthFor(GRANTED_OFFSET, SEGMENT) > 0);
    }
}
