package io.hotkeeper.numa.internal;

import io.hotkeeper.numa.generated.numa_h;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * libnuma calls that report failures through {@code errno}, re-linked with
 * {@code Linker.Option.captureCallState("errno")} (jextract cannot emit call-state capture).
 *
 * <p>Each handle is built from the jextract-generated symbol address and {@code FunctionDescriptor}
 * ({@code numa_h.X$address()}, {@code numa_h.X$descriptor()}), so signatures are never restated by hand.
 * Handles link lazily, on the first call of each method; the first call initialises {@link numa_h}, which
 * loads {@code libnuma.so.1} and throws {@link ExceptionInInitializerError} if it cannot.
 *
 * <p>Every method takes a call-state segment from {@link #allocateCallState(Arena)}; after the call,
 * {@link #errno(MemorySegment)} reads the {@code errno} the C function left behind.
 */
public final class ErrnoCalls {

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private ErrnoCalls() {
    }

    /**
     * Allocates a call-state segment to pass to the calls of this class.
     *
     * <p>Threads: any (the segment follows {@code arena}'s confinement). Progress: blocking (allocates).
     *
     * @param arena the arena owning the segment
     * @return a zeroed segment laid out as {@link Linker.Option#captureStateLayout()}
     */
    public static MemorySegment allocateCallState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    /**
     * The {@code errno} captured by the last call that used {@code callState}.
     *
     * <p>Threads: those that may access {@code callState}. Progress: wait-free.
     *
     * @param callState a segment from {@link #allocateCallState(Arena)}
     * @return the captured {@code errno}
     */
    public static int errno(MemorySegment callState) {
        return (int) ERRNO.get(callState, 0L);
    }

    /**
     * {@code int numa_available(void)}, capturing {@code errno} (set when it returns {@code -1} because
     * {@code get_mempolicy} failed with {@code ENOSYS} or {@code EPERM}).
     *
     * <p>Threads: any. Progress: blocking (system call).
     *
     * @param callState a segment from {@link #allocateCallState(Arena)}
     * @return {@code 0} if the NUMA API is usable, {@code -1} otherwise
     */
    public static int numaAvailable(MemorySegment callState) {
        try {
            return (int) NumaAvailable.HANDLE.invokeExact(callState);
        } catch (Error | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("numa_available: unexpected failure", t);
        }
    }

    /**
     * {@code long mbind(void *start, unsigned long len, int mode, const unsigned long *nmask,
     * unsigned long maxnode, unsigned flags)}, capturing {@code errno}.
     *
     * <p>Threads: any that may access {@code start} ({@code start} is kept alive for the call).
     * Progress: blocking (system call; may migrate pages).
     *
     * @param callState a segment from {@link #allocateCallState(Arena)}
     * @param start first byte of the range, page aligned
     * @param len length of the range in bytes
     * @param mode memory policy, e.g. {@code MPOL_BIND}
     * @param nmask node bit mask, {@code unsigned long} words
     * @param maxnode number of bits in {@code nmask} plus one (the kernel ignores the last bit)
     * @param flags {@code MPOL_MF_*} flags
     * @return {@code 0} on success, {@code -1} with {@code errno} set on failure
     */
    public static long mbind(MemorySegment callState, MemorySegment start, long len, int mode,
                             MemorySegment nmask, long maxnode, int flags) {
        try {
            return (long) Mbind.HANDLE.invokeExact(callState, start, len, mode, nmask, maxnode, flags);
        } catch (Error | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("mbind: unexpected failure", t);
        }
    }

    /**
     * {@code int numa_move_pages(int pid, unsigned long count, void **pages, const int *nodes, int *status,
     * int flags)}, capturing {@code errno}. With {@code nodes} = {@code NULL} nothing moves and
     * {@code status} receives the node of each page (or a negative errno per page).
     *
     * <p>Threads: any that may access the segments. Progress: blocking (system call).
     *
     * @param callState a segment from {@link #allocateCallState(Arena)}
     * @param pid process id, {@code 0} for the calling process
     * @param count number of pages
     * @param pages {@code count} page addresses
     * @param nodes target nodes, or {@link MemorySegment#NULL} to query
     * @param status {@code count} ints, written by the call
     * @param flags {@code MPOL_MF_MOVE} or {@code MPOL_MF_MOVE_ALL}; {@code 0} to query
     * @return {@code 0} on success, a positive number of pages that were not moved, or {@code -1} with
     *         {@code errno} set
     */
    public static int numaMovePages(MemorySegment callState, int pid, long count, MemorySegment pages,
                                    MemorySegment nodes, MemorySegment status, int flags) {
        try {
            return (int) NumaMovePages.HANDLE.invokeExact(callState, pid, count, pages, nodes, status, flags);
        } catch (Error | RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError("numa_move_pages: unexpected failure", t);
        }
    }

    /**
     * Links every handle of this class now instead of on first use, so that a missing symbol shows up when
     * the facade is probed rather than in the middle of an operation.
     *
     * <p>Threads: any. Progress: blocking (class initialisation, symbol look-up).
     *
     * @throws ExceptionInInitializerError if libnuma or one of its symbols cannot be found
     */
    public static void linkAll() {
        Objects.requireNonNull(NumaAvailable.HANDLE);
        Objects.requireNonNull(Mbind.HANDLE);
        Objects.requireNonNull(NumaMovePages.HANDLE);
    }

    private static MethodHandle capturingErrno(MemorySegment address, FunctionDescriptor descriptor) {
        return Linker.nativeLinker().downcallHandle(address, descriptor, CAPTURE_ERRNO);
    }

    private static final class NumaAvailable {
        private static final MethodHandle HANDLE =
                capturingErrno(numa_h.numa_available$address(), numa_h.numa_available$descriptor());
    }

    private static final class Mbind {
        private static final MethodHandle HANDLE =
                capturingErrno(numa_h.mbind$address(), numa_h.mbind$descriptor());
    }

    private static final class NumaMovePages {
        private static final MethodHandle HANDLE =
                capturingErrno(numa_h.numa_move_pages$address(), numa_h.numa_move_pages$descriptor());
    }
}
