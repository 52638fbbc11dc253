package io.hotkeeper.engine.worker;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.Cleaner;
import java.util.Arrays;

/**
 * Hands out workers: small dense ids for the threads that write per-worker state (stats stripes, key shards,
 * combiner blocks), encoded by {@link WorkerHandle}.
 *
 * <p>A platform thread gets an <em>exclusive</em> id at its first call: no other live thread holds it, so state
 * indexed by it has a single writer. The id is recorded with its thread, and once that thread has terminated the
 * next new thread takes it over (the lowest id whose thread is dead, or never used): ids stay below the peak
 * number of live writers, deterministically, with no garbage collection involved. So do the key shards and
 * combiner blocks indexed by them: 5,000 threads that live one after another share one id and one shard. What was
 * chosen for an id's last holder ({@link WorkerAssignment}: a worker table, a key shard under a limit) is forgotten
 * when a new holder takes the id, on that holder's thread before its id is returned.
 *
 * <p>A virtual thread is mapped to its <em>carrier</em> where the carrier is visible (the JVM was started with
 * {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}, or the engine module): it shares the carrier's
 * id, so 100,000 virtual threads on 2 carriers use 2 ids. Because several virtual threads take turns on one
 * carrier, such a worker is flagged {@linkplain WorkerHandle#isShared(int) shared}: writers must use atomic
 * read-modify-write on state indexed by it, which stays correct even if a virtual thread were unmounted in the
 * middle of a call. Where the carrier is not visible, a virtual thread gets a shared worker hashed from its
 * thread id ({@link WorkerHandle#hashed}).
 *
 * <p>Threads: any. Progress: wait-free after a thread's first call (a ThreadLocal read); the first call takes a
 * lock to allocate the id (blocking).
 */
public final class Workers {
    private static final Cleaner CLEANER = Cleaner.create();
    /** Guards {@link #holders}. */
    private static final Object LOCK = new Object();
    /**
     * The holder of each id: the platform thread it belongs to, or, for a carrier's id, a marker object that the
     * {@link Cleaner} of the carrier's token removes (a carrier is not visible as a Thread from here); null: free.
     */
    private static Object[] holders = new Object[64];
    private static final ThreadLocal<Token> PLATFORM =
            ThreadLocal.withInitial(() -> register(Thread.currentThread()));
    private static final ThreadLocal<Token> CARRIER = carrierLocal();

    private Workers() {
    }

    /** A per-thread (or per-carrier) token naming the id. */
    private static final class Token {
        final int id;

        Token(int id) {
            this.id = id;
        }
    }

    /** Frees a carrier's id once its token is unreachable, unless the id was taken over since. */
    private record Release(int id, Object marker) implements Runnable {
        @Override
        public void run() {
            synchronized (LOCK) {
                if (holders[id] == marker) {
                    holders[id] = null;
                }
            }
        }
    }

    /*
     * Hand-over of an id. A dead thread's last writes to its exclusive state (stats stripe, key shard, combiner
     * block) are plain or opaque stores; the next thread that gets the id continues from them. It gets the id only
     * after Thread.isAlive() returned false for the previous holder, and the final action of a thread
     * synchronizes-with any action of another thread that detects its termination that way (JLS 17.4.4): every
     * write of the dead thread happens-before the new holder's first access. That is an edge of our own; no
     * garbage collection or safepoint is involved. Nothing whose uniqueness matters relies on it anyway: salt
     * counters are always advanced atomically.
     */
    private static Token register(Object holder) {
        int id;
        synchronized (LOCK) {
            id = 0;
            while (id < holders.length && holders[id] != null
                    && !(holders[id] instanceof Thread t && !t.isAlive())) {
                id++;
            }
            if (id == holders.length) {
                holders = Arrays.copyOf(holders, 2 * holders.length);
            }
            holders[id] = holder;
        }
        // Outside the lock (see WorkerAssignment.idChangedHands): a choice made for the id's last holder is not
        // this holder's. Before the Token is returned, so before this thread's first call to any assignment.
        WorkerAssignment.idChangedHands(id);
        return new Token(id);
    }

    /**
     * Whether platform thread {@code thread} holds an id, i.e. has looked its worker up (diagnostics, tests).
     * Threads: any. Progress: blocking (a short lock).
     */
    public static boolean holdsId(Thread thread) {
        synchronized (LOCK) {
            for (Object h : holders) {
                if (h == thread) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Whether id {@code id} is held now: by a live platform thread, or by a carrier whose token is still reachable.
     * An id never handed out, or whose thread has ended, is not. Threads: any. Progress: blocking (a short lock).
     */
    public static boolean inUse(int id) {
        synchronized (LOCK) {
            Object h = id >= 0 && id < holders.length ? holders[id] : null;
            return h != null && !(h instanceof Thread t && !t.isAlive());
        }
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
     * The calling thread's worker: an id, flagged shared when others may use the same id ({@link WorkerHandle}).
     *
     * <p>Threads: any. Progress: wait-free after the thread's first call.
     */
    public static int current() {
        Thread t = Thread.currentThread();
        if (!t.isVirtual()) {
            return WorkerHandle.exclusive(PLATFORM.get().id);
        }
        return currentVirtual(t);
    }

    private static int currentVirtual(Thread t) {
        ThreadLocal<Token> carrier = CARRIER;
        if (carrier != null) {
            Token token = carrier.get();
            if (token == null) {
                Object marker = new Object();
                token = register(marker);
                CLEANER.register(token, new Release(token.id, marker));
                carrier.set(token);
            }
            return WorkerHandle.shared(token.id);
        }
        return WorkerHandle.hashed(t.threadId());
    }
}
