/**
 * What a bulk codec plugs into the client with: the service ({@link dev.sluice.internal.bulk.spi.BulkCodec}), a
 * client's bulk memory, one writer's batches and their messages, and the memory helpers a codec borrows. The client's
 * bulk writer owns everything else (slots, the byte budget, sending, resending, answers, metrics). Exported to the
 * {@code dev.sluice.bulk} module only.
 */
package dev.sluice.internal.bulk.spi;
