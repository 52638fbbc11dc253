/** libnuma bindings (jextract-generated) and the safe {@code Numa} facade. */
module io.hotkeeper.numa {
    exports io.hotkeeper.numa;
}
