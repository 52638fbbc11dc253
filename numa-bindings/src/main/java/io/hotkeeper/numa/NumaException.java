package io.hotkeeper.numa;

import io.hotkeeper.numa.internal.ErrnoNames;

/**
 * A libnuma call or NUMA system call failed at run time; carries the {@code errno} it reported.
 *
 * <p>Thrown only by an available {@link Numa}; an unavailable one falls back instead of failing.
 */
public final class NumaException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The errno value reported by the failed call. */
    private final int errno;

    /**
     * Creates an exception for a failed call.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @param operation the call and its arguments, e.g. {@code "mbind(node=0, bytes=4096)"}
     * @param errno the errno value it reported
     */
    public NumaException(String operation, int errno) {
        super(operation + ": failed with " + ErrnoNames.describe(errno));
        this.errno = errno;
    }

    /**
     * The errno value reported by the failed call.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the errno value, e.g. {@code 1} for {@code EPERM}
     */
    public int errno() {
        return errno;
    }
}
