/**
 * Hand-written native calls that jextract cannot emit: the {@code sched_getcpu} downcall linked with
 * {@link java.lang.foreign.Linker.Option#critical(boolean)}, and libnuma calls re-linked with
 * {@link java.lang.foreign.Linker.Option#captureCallState(String...)} so that {@code errno} survives the call.
 *
 * <p>Everything that jextract can emit lives in {@code io.hotkeeper.numa.generated}; the errno-capturing
 * handles here reuse the generated symbol addresses and function descriptors, so the C signatures have one
 * source of truth. Not exported from the module.
 */
package io.hotkeeper.numa.internal;
