/** NUMA topology and placement for Hotkeeper's native regions. */
package io.hotkeeper.numa;
