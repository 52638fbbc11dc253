package io.hotkeeper.engine.worker;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Cleaner;
import java.util.BitSet;

/**
 * Small dense ids for the threads that write per-worker state (stats stripes, key shards).
 *
 * <p>A platform thread gets an <em>exclusive</em> id at its first call: no other live thread holds it, so state
 * indexed by it has a single writer. When the thread dies the id returns to the pool (a {@link Cleaner} watches
 * the per-thread token), and the next new thread reuses it, so ids stay below the peak number of live writers.
 *
 * <p>A virtual thread is mapped to its <em>carrier</em> where the carrier is visible (the JVM was started with
 * {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}, or the engine module): it shares the carrier's
 * id, so 100,000 virtual threads on 2 carriers use 2 ids. Because several virtual threads take turns on one
 * carrier, such a ticket is flagged {@linkplain #isShared(int) shared}: writers must use atomic read-modify-write
 * on state indexed by it, which stays correct even if a virtual thread were unmounted in the middle of a call.
 * Where the carrier is not visible, a virtual thread gets a shared ticket hashed from its thread id.
 *
 * <p>Threads: any. Progress: wait-free after a thread's first call (a ThreadLocal read); the first call takes a
 * lock to allocate the id (blocking).
 */
public final class Workers {
    /** Set in a ticket whose id is used by several threads in turn (virtual threads). */
    public static final int SHARED_FLAG = 1 << 30;
    /** Mask of the id in a ticket. */
    public static final int ID_MASK = SHARED_FLAG - 1;

    private static final Cleaner CLEANER = Cleaner.create();
    private static final BitSet TAKEN = new BitSet();
    private static final ThreadLocal<Token> PLATFORM = ThreadLocal.withInitial(Workers::register);
    private static final ThreadLocal<Token> CARRIER = carrierLocal();

    private Workers() {
    }

    /** A per-thread token; its id returns to the pool when the thread's map drops it. */
    private static final class Token {
        final int id;

        Token(int id) {
            this.id = id;
        }
    }

    private record Release(int id) implements Runnable {
        @Override
        public void run() {
            synchronized (TAKEN) {
                TAKEN.clear(id);
            }
        }
    }

    /*
     * Hand-over of an id. A dead thread's last writes to its exclusive stats stripe are plain/opaque stores; the
     * next thread that gets the id continues from them. Its Token is released only after the thread has died and
     * a GC found the token unreachable (a safepoint: every thread's earlier stores are globally visible by then),
     * and the release and the next registration go through the same monitor, so the new owner sees the last
     * values. Nothing whose uniqueness matters relies on this: salt counters are always advanced atomically.
     */
    private static Token register() {
        int id;
        synchronized (TAKEN) {
            id = TAKEN.nextClearBit(0);
            TAKEN.set(id);
        }
        Token token = new Token(id);
        CLEANER.register(token, new Release(id));
        return token;
    }

    @SuppressWarnings("unchecked")
    private static ThreadLocal<Token> carrierLocal() {
        try {
            Class<?> type = Class.forName("jdk.internal.misc.CarrierThreadLocal");
            MethodHandle ctor = MethodHandles.lookup().findConstructor(type, MethodType.methodType(void.class));
            ThreadLocal<Token> local = (ThreadLocal<Token>) ctor.invoke();
            // Touch it once so a misconfigured JDK fails here, not on the hot path.
            local.get();
            return local;
        } catch (Throwable notExported) {
            return null;
        }
    }

    /**
     * Whether virtual threads are mapped to their carriers (see class javadoc). Threads: any. Progress: wait-free.
     */
    public static boolean carrierVisible() {
        return CARRIER != null;
    }

    /**
     * The calling thread's ticket: an id in the low bits, {@link #SHARED_FLAG} when others may use the same id.
     *
     * <p>Threads: any. Progress: wait-free after the thread's first call.
     */
    public static int current() {
        Thread t = Thread.currentThread();
        if (!t.isVirtual()) {
            return PLATFORM.get().id;
        }
        return currentVirtual(t);
    }

    private static int currentVirtual(Thread t) {
        ThreadLocal<Token> carrier = CARRIER;
        if (carrier != null) {
            Token token = carrier.get();
            if (token == null) {
                token = register();
                carrier.set(token);
            }
            return token.id | SHARED_FLAG;
        }
        long h = t.threadId() * 0x9e3779b97f4a7c15L;
        return (int) (h >>> 40) & 0xFFFF | SHARED_FLAG | (1 << 29);
    }

    /** Whether {@code ticket} is used by several threads in turn. Threads: any. Progress: wait-free. */
    public static boolean isShared(int ticket) {
        return (ticket & SHARED_FLAG) != 0;
    }

    /** The id part of {@code ticket}. Threads: any. Progress: wait-free. */
    public static int id(int ticket) {
        return ticket & ID_MASK;
    }
}
