package io.hotkeeper.engine.snapshot;

/**
 * What a merge did and what it could not carry over.
 *
 * @param byTable       true if the tables were merged slot by slot (equal hash function and table size); false if
 *                      only the tracked keys and their estimates were merged
 * @param mergedWeight  the weight (sum of counts) the merge added or combined
 * @param droppedWeight the weight the merge could not keep: table merge, counts of fingerprints that did not fit
 *                      in their bucket's 8 slots (and truncated keys replayed into a live sketch); key merge, the
 *                      inputs' untracked table mass and their truncated keys
 */
public record MergeReport(boolean byTable, long mergedWeight, long droppedWeight) {
}
