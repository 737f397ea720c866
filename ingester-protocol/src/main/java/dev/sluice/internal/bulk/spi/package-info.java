/**
 * What a bulk codec plugs into the client with: the service ({@link dev.sluice.internal.bulk.spi.BulkCodec}), a
 * client's bulk memory, one writer's batches ({@link dev.sluice.internal.bulk.spi.TableCodec}), and the memory helpers
 * a codec borrows. The codec builds batches, renders the schema, reads the answers and unloads each batch into one
 * {@link dev.sluice.internal.bulk.spi.BulkMessage}: its bytes laid out as a heap head and parts, with the memory they
 * lie in. From there on the message is the client's: its bulk writer sends and resends it, hands large parts to the
 * transport, budgets it, and closes its memory once it is answered or failed and the transport let go, without
 * calling back into the codec. The client's bulk writer owns everything else (slots, the byte budget, sending,
 * resending, answers, metrics). Exported to the {@code dev.sluice.bulk} module only.
 */
package dev.sluice.internal.bulk.spi;
