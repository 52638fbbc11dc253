package io.hotkeeper.engine.snapshot;

/**
 * Bytes that are not a valid Hotkeeper snapshot: truncated, a wrong magic or version, a CRC mismatch, a size that
 * would overflow or that the input cannot hold, a key longer than the header allows, a malformed table word; or
 * wrong content behind a valid CRC: a duplicate key, a key both truncated and located, a decoded size above the
 * reader's {@code maxDecodedBytes}. Also the arguments of {@code HotkeeperSnapshot.of} that no snapshot could
 * hold (a table of the wrong length, ...). The message names the first check that failed and the field.
 */
public final class SnapshotFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** An exception with the given message. */
    public SnapshotFormatException(String message) {
        super(message);
    }
}
