package dev.sluice.write;

/** Compression of data on the wire. */
public enum Compression {
    /** Nothing compressed. */
    None,
    /** gRPC message compression with gzip (regular and stream writes). */
    Gzip,
    /** gRPC message compression with Zstandard on regular writes; Arrow IPC body compression on bulk writes. */
    Zstd,
    /** Arrow IPC LZ4 frame body compression (bulk writes only). */
    Lz4
}
