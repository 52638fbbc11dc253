package io.hotkeeper.engine.worker;

import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.IntConsumer;
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
 * with the stripe while its id's holder lives. When the id changes hands (a new thread or carrier takes over an
 * ended one's id) {@link Workers} tells every assignment over the JVM's workers, and the stripe's choice is
 * {@linkplain #forget forgotten}: the new holder chooses afresh among the ids in use then, rather than inherit a
 * choice that another live writer may have been given meanwhile.
 *
 * <p>Memory order: an entry goes from 0 to 1 + the choice, and back to 0 when its id changes hands, always under
 * this object's lock; {@link #of} reads it plain. A byte is never torn, so a racy read sees 0 or a value written
 * under the lock, each a valid choice (correctness never depends on which: the things chosen among take any number
 * of writers); 0 takes the lock, which orders it after the write. The clearing write is made by the id's new holder
 * itself, before its first call here, so the one thread whose fast path reads the entry sees it in program order.
 * Nothing else is published through an entry (the things chosen among are final fields of their owner, published
 * with it), so no read needs acquire semantics. (Worker tables do not even read it on the observe path:
 * {@code TableSet} keeps each stripe's table once given, and is told here to drop it.)
 *
 * <p>Threads: any. Progress: {@link #of} is wait-free for a stripe that has its choice, blocking (a short lock)
 * the first time; {@link #assigned} is wait-free; {@link #forget} is blocking (a short lock).
 */
public final class WorkerAssignment {
    /** Most choices (an entry is a byte). */
    public static final int MAX_CHOICES = 127;

    private final int choices;
    private final int exclusiveStripes;
    private final IntPredicate inUse;
    /** Entry {@code stripe}: 1 + its choice, or 0 before it asked. See the class comment for the access mode. */
    private final byte[] choicePlusOne;
    /** Told the stripe whose choice was forgotten, under this object's lock (see {@link #forget}). */
    private final IntConsumer forgotten;

    /**
     * The assignments over the JVM's own workers ({@link Workers#inUse}), held weakly (an assignment lives as long
     * as its sketch): {@link #idChangedHands} forgets the choice of an id that a new holder took. Its own lock
     * guards it.
     */
    private static final Set<WorkerAssignment> OVER_JVM_WORKERS =
            Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    /** Choices for the workers of {@code space}, ids in use as {@link Workers#inUse} says. */
    public WorkerAssignment(int choices, WorkerSpace space) {
        this(choices, space, stripe -> { });
    }

    /**
     * As above; {@code forgotten} is told each exclusive stripe whose choice is forgotten because its id changed
     * hands, by the id's new holder, under this assignment's lock (a cache of the choice drops its entry).
     */
    public WorkerAssignment(int choices, WorkerSpace space, IntConsumer forgotten) {
        this(choices, space, Workers::inUse, forgotten);
        OVER_JVM_WORKERS.add(this);
    }

    /**
     * An assignment whose ids in use {@code inUse} tells (a test's own workers, not the JVM's). Ids changing hands
     * in {@link Workers} do not reach it; a test calls {@link #forget} itself. Threads: any. Progress: wait-free.
     */
    public static WorkerAssignment withIdsInUse(int choices, WorkerSpace space, IntPredicate inUse) {
        return new WorkerAssignment(choices, space, inUse, stripe -> { });
    }

    /** The general form (package tests): ids in use as {@code inUse} says, forgotten stripes told {@code forgotten}. */
    WorkerAssignment(int choices, WorkerSpace space, IntPredicate inUse, IntConsumer forgotten) {
        if (choices < 1 || choices > MAX_CHOICES) {
            throw new IllegalArgumentException("choices=" + choices + ": must be in 1.." + MAX_CHOICES);
        }
        this.choices = choices;
        this.exclusiveStripes = space.exclusiveStripes();
        this.inUse = inUse;
        this.forgotten = forgotten;
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

    /**
     * Forgets the choice of worker id {@code id}, whose holder changed (an exclusive stripe; nothing for a shared
     * one, whose workers come and go by design): its next {@link #of} chooses afresh among the ids in use then.
     * Called by {@link Workers} on the thread that has just taken the id over, before that thread's first call
     * here, so that its own plain read of the entry sees the 0 in program order. Threads: the id's new holder (or
     * a test). Progress: blocking (a short lock).
     */
    public synchronized void forget(int id) {
        if (id >= 0 && id < exclusiveStripes && choicePlusOne[id] != 0) {
            choicePlusOne[id] = 0;
            forgotten.accept(id);
        }
    }

    /**
     * Tells every assignment over the JVM's workers that id {@code id} has a new holder ({@link #forget}). Called
     * by {@link Workers} on that holder's thread, outside its own lock ({@link #assign} takes this object's lock
     * and then {@code Workers}'; the reverse order here could deadlock). Threads: the id's new holder. Progress:
     * blocking (short locks).
     */
    static void idChangedHands(int id) {
        WorkerAssignment[] live;
        synchronized (OVER_JVM_WORKERS) {
            live = OVER_JVM_WORKERS.toArray(new WorkerAssignment[0]);
        }
        for (WorkerAssignment assignment : live) {
            assignment.forget(id);
        }
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
