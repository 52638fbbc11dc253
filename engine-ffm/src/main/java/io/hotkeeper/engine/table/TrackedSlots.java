package io.hotkeeper.engine.table;

/**
 * What the table tells the key shards: a slot whose key was tracked has just been handed to another key.
 *
 * <p>Threads: called on the thread whose phase-3 CAS replaced the slot, right after the CAS.
 */
public interface TrackedSlots {
    /**
     * The slot at byte offset {@code slotOffset} held {@code oldWord} (tracked) and now belongs to another key.
     * Progress: must be wait-free.
     */
    void replaced(long slotOffset, long oldWord);
}
