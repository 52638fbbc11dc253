package io.hotkeeper.numa.internal;

/**
 * Symbolic names for the Linux {@code errno} values that the NUMA system calls report
 * ({@code get_mempolicy(2)}, {@code mbind(2)}, {@code move_pages(2)}); numbers are the asm-generic ones
 * shared by x86-64 and aarch64.
 */
public final class ErrnoNames {

    private ErrnoNames() {
    }

    /**
     * Describes an errno value, e.g. {@code "EPERM (errno=1)"}.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @param errno a positive errno value (negative values, as in {@code move_pages} status words, are
     *              negated first)
     * @return the symbolic name with the number, or just the number if the name is not known here
     */
    public static String describe(int errno) {
        int e = Math.abs(errno);
        String name = switch (e) {
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 3 -> "ESRCH";
            case 5 -> "EIO";
            case 7 -> "E2BIG";
            case 12 -> "ENOMEM";
            case 13 -> "EACCES";
            case 14 -> "EFAULT";
            case 16 -> "EBUSY";
            case 19 -> "ENODEV";
            case 22 -> "EINVAL";
            case 38 -> "ENOSYS";
            default -> null;
        };
        return name == null ? "errno=" + e : name + " (errno=" + e + ")";
    }
}
