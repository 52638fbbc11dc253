package io.hotkeeper.engine.worker;

import java.util.function.IntPredicate;

/**
 * Which of {@code choices} things (a table of per-worker tables, a key shard of a table with fewer shards than
 * workers) each worker uses, given in the order workers first ask, so that as many workers as choices get one each
 * whatever their ids.
 *
 * <p>Worker ids are global to the JVM ({@link Workers}) and handed out lowest-free-first, so the ids of one thread
 * pool have holes wherever other threads hold (or held and freed) ids, and a fixed {@code id % choices} puts two
 * writers whose ids differ by a multiple of {@code choices} on one choice. Here the choice is made per stripe of
 * the {@link WorkerSpace} (an exclusive stripe is one worker id; the shared stripes take every other id): the first
 * time a stripe asks it gets the choice with the fewest stripes in use (an exclusive stripe whose id is held by a
 * live thread or carrier, {@link Workers#inUse}; a shared stripe always), the lowest on a tie. The choice then stays
 * with the stripe: a thread that takes over an ended thread's id keeps its choice.
 *
 * <p>Memory order: each entry is written once, from 0 to 1 + the choice, under this object's lock; {@link #of}
 * reads it plain. A byte is never torn, so a racy read sees 0 or the final value; 0 takes the lock, which orders
 * it after the write. Nothing else is published through an entry (the things chosen among are final fields of
 * their owner, published with it), so no read needs acquire semantics. (Worker tables do not even read it on the
 * observe path: {@code TableSet} keeps each stripe's table once given.)
 *
 * <p>Threads: any. Progress: {@link #of} is wait-free for a stripe that has its choice, blocking (a short lock)
 * the first time; {@link #assigned} is wait-free.
 */
public final class WorkerAssignment {
    /** Most choices (an entry is a byte). */
    public static final int MAX_CHOICES = 127;

    private final int choices;
    private final int exclusiveStripes;
    private final IntPredicate inUse;
    /** Entry {@code stripe}: 1 + its choice, or 0 before it asked. See the class comment for the access mode. */
    private final byte[] choicePlusOne;

    /** Choices for the workers of {@code space}, ids in use as {@link Workers#inUse} says. */
    public WorkerAssignment(int choices, WorkerSpace space) {
        this(choices, space, Workers::inUse);
    }

    /** As above, with {@code inUse} telling which worker ids are held (a test's own workers). */
    public WorkerAssignment(int choices, WorkerSpace space, IntPredicate inUse) {
        if (choices < 1 || choices > MAX_CHOICES) {
            throw new IllegalArgumentException("choices=" + choices + ": must be in 1.." + MAX_CHOICES);
        }
        this.choices = choices;
        this.exclusiveStripes = space.exclusiveStripes();
        this.inUse = inUse;
        this.choicePlusOne = new byte[space.stripes()];
    }

    /**
     * The choice, in {@code 0..choices-1}, of {@code worker} (a {@link WorkerHandle} of this space; {@link
     * WorkerHandle#NO_HANDLE} counts as stripe 0), given now if its stripe has none. Threads: any. Progress:
     * wait-free once the stripe has its choice, blocking the first time.
     */
    public int of(long worker) {
        int stripe = WorkerHandle.stripe(worker);
        int entry = choicePlusOne[stripe]; // plain: written once under the lock, see the class comment
        return entry != 0 ? entry - 1 : assign(stripe);
    }

    /**
     * The choice already given to {@code worker}'s stripe, or -1 if it has not asked yet. Threads: any. Progress:
     * wait-free.
     */
    public int assigned(long worker) {
        return choicePlusOne[WorkerHandle.stripe(worker)] - 1;
    }

    private synchronized int assign(int stripe) {
        if (choicePlusOne[stripe] != 0) {
            return choicePlusOne[stripe] - 1; // given meanwhile to another worker of the stripe
        }
        int[] load = new int[choices];
        for (int other = 0; other < choicePlusOne.length; other++) {
            if (choicePlusOne[other] != 0 && (other >= exclusiveStripes || inUse.test(other))) {
                load[choicePlusOne[other] - 1]++;
            }
        }
        int best = 0;
        for (int c = 1; c < choices; c++) {
            if (load[c] < load[best]) {
                best = c;
            }
        }
        choicePlusOne[stripe] = (byte) (best + 1);
        return best;
    }
}
