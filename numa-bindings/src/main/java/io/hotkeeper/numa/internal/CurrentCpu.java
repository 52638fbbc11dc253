package io.hotkeeper.numa.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Hand-written downcall for glibc's {@code int sched_getcpu(void)} (declared in {@code <sched.h>} under
 * {@code _GNU_SOURCE}, so it is not part of the libnuma headers that jextract reads).
 *
 * <p>The call is on hot paths (picking a per-node shard per operation), so it is linked with
 * {@code Linker.Option.critical(false)}: no thread-state transition, no heap access. {@code sched_getcpu}
 * is answered from the vDSO / rseq area without entering the kernel on Linux x86-64 and aarch64.
 *
 * <p>Linking happens once, when this class initialises; it never throws: if libc has no such symbol or
 * native access is denied, {@link #isLinked()} is {@code false} and {@link #unlinkedReason()} says why.
 */
public final class CurrentCpu {

    private static final String UNLINKED_REASON;
    private static final MethodHandle SCHED_GETCPU;

    static {
        MethodHandle handle = null;
        String reason = null;
        try {
            Linker linker = Linker.nativeLinker();
            Optional<MemorySegment> symbol = linker.defaultLookup().find("sched_getcpu");
            if (symbol.isPresent()) {
                handle = linker.downcallHandle(symbol.get(), FunctionDescriptor.of(ValueLayout.JAVA_INT),
                        Linker.Option.critical(false));
            } else {
                reason = "symbol=sched_getcpu: not found in the C library";
            }
        } catch (IllegalCallerException e) {
            reason = "sched_getcpu: native access is not enabled (" + e.getMessage() + ")";
        } catch (RuntimeException e) {
            reason = "sched_getcpu: cannot be linked (" + e + ")";
        }
        SCHED_GETCPU = handle;
        UNLINKED_REASON = reason;
    }

    private CurrentCpu() {
    }

    /**
     * Whether {@link #schedGetcpu()} calls the C library.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return {@code true} if {@code sched_getcpu} was linked
     */
    public static boolean isLinked() {
        return SCHED_GETCPU != null;
    }

    /**
     * Why {@code sched_getcpu} could not be linked.
     *
     * <p>Threads: any. Progress: wait-free.
     *
     * @return the reason, or {@code null} when {@link #isLinked()}
     */
    public static String unlinkedReason() {
        return UNLINKED_REASON;
    }

    /**
     * Calls {@code sched_getcpu()}: the CPU the calling thread was running on during the call.
     *
     * <p>Threads: any. Progress: wait-free (critical downcall, no kernel entry on vDSO/rseq kernels).
     *
     * @return the CPU number, or {@code -1} if the call failed or {@code sched_getcpu} is not linked
     */
    public static int schedGetcpu() {
        MethodHandle handle = SCHED_GETCPU;
        if (handle == null) {
            return -1;
        }
        try {
            return (int) handle.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError("sched_getcpu: unexpected failure", t);
        }
    }
}
