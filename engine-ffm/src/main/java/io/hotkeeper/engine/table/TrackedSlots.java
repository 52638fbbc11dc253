package io.hotkeeper.engine.table;

/**
 * What the table tells the key shards: a slot whose key was tracked has just been handed to another key.
 *
 * <p>Threads: called on the thread whose phase-3 CAS replaced the slot, right after the CAS.
 */
public interface TrackedSlots {
    /**
     * The slot at byte offset {@code slotOffset} held {@code oldWord} (tracked) and now belongs to another key.
     * {@code lockHeld}: the replacing CAS took the slot's link lock ({@link TableLayout#PROMOTING}) for the
     * caller, and the receiver must give it back; false when another thread held it already. Returns true if
     * the expelled key was queued for the expelled-key listener (the table then flags its result
     * {@link BucketTable#EXPELLED}). Progress: lock-free.
     */
    boolean replaced(long slotOffset, long oldWord, boolean lockHeld);
}
