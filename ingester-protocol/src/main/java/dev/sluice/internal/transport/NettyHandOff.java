package dev.sluice.internal.transport;

import dev.sluice.internal.bulk.spi.DirectHandOff;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.UnpooledByteBufAllocator;
import io.grpc.netty.shaded.io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Hands off-heap memory to gRPC's netty transport as one more buffer of the message being framed, so that netty
 * writes it to the socket from where it lies, with no copy.
 *
 * <p>gRPC frames a message of unknown length ({@code MethodDescriptor.Marshaller#stream} returning a stream that
 * is not {@code KnownLength}) by draining it into a {@code MessageFramer.BufferChainOutputStream}: a list of
 * netty buffers, each handed to the transport whole. Appending a netty buffer that wraps the caller's memory to
 * that list is all this does. The list and the wrapper type are gRPC internals, reached reflectively (grpc-core's
 * {@code io.grpc.internal.MessageFramer} and grpc-netty's {@code NettyWritableBuffer}, as of gRPC 1.85);
 * when they are not found, or the target is any other stream (gRPC compression wraps it, the
 * in-process transport has none), {@link #handOff} returns false and the caller copies, as before.
 *
 * <p>The wrapping buffer does not own the memory: when netty releases it (written, or dropped with a cancelled
 * call or a framer disposed), it only runs the caller's callback.
 */
public final class NettyHandOff implements DirectHandOff {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(NettyHandOff.class);
    private static final DirectHandOff INSTANCE = create();

    private final Class<?> chain;
    private final Field buffers;
    private final Field current;
    private final Constructor<?> writable;

    private NettyHandOff(Class<?> chain, Field buffers, Field current, Constructor<?> writable) {
        this.chain = chain;
        this.buffers = buffers;
        this.current = current;
        this.writable = writable;
    }

    /**
     * Returns the hand-off for this process's gRPC, or {@link DirectHandOff#NONE} when its internals are not
     * the ones this class knows.
     *
     * @return the hand-off
     */
    public static DirectHandOff get() {
        return INSTANCE;
    }

    private static DirectHandOff create() {
        try {
            Class<?> chain = Class.forName("io.grpc.internal.MessageFramer$BufferChainOutputStream");
            Field buffers = chain.getDeclaredField("bufferList");
            Field current = chain.getDeclaredField("current");
            Class<?> writableType = Class.forName("io.grpc.netty.shaded.io.grpc.netty.NettyWritableBuffer");
            Constructor<?> writable = writableType.getDeclaredConstructor(ByteBuf.class);
            if (!List.class.isAssignableFrom(buffers.getType()) || !current.getType().isAssignableFrom(writableType)) {
                throw new NoSuchFieldException("gRPC's buffer chain has fields of other types");
            }
            buffers.setAccessible(true);
            current.setAccessible(true);
            writable.setAccessible(true);
            return new NettyHandOff(chain, buffers, current, writable);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.warn("gRPC's framer is not the one Sluice knows ({}); large bulk batches are copied into netty's buffers",
                    e.toString());
            return DirectHandOff.NONE;
        }
    }

    @Override
    public boolean handOff(OutputStream target, ByteBuffer memory, Runnable released) {
        if (target.getClass() != chain || !memory.isDirect() || !memory.hasRemaining()) {
            return false;
        }
        Lent lent = new Lent(memory, released);
        try {
            Object buffer = writable.newInstance(lent);
            @SuppressWarnings("unchecked")
            List<Object> list = (List<Object>) buffers.get(target);
            // The chain's next write goes to a new buffer of its own (the lent one is full: its capacity is its length).
            current.set(target, null);
            list.add(buffer);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            lent.abandon();
            LOG.debug("could not hand memory to gRPC; copying it", e);
            return false;
        }
    }

    /** A netty buffer over memory it does not own: full, read-only to netty, and running a callback when released. */
    private static final class Lent extends UnpooledUnsafeDirectByteBuf {
        private Runnable released;

        Lent(ByteBuffer memory, Runnable released) {
            // This constructor never frees the given memory (netty does not own it); the buffer is its full length.
            super(UnpooledByteBufAllocator.DEFAULT, memory, memory.remaining());
            this.released = released;
        }

        /** Drops the buffer without telling the owner: it was never given to gRPC. */
        void abandon() {
            released = null;
            release();
        }

        @Override
        protected void deallocate() {
            super.deallocate();
            Runnable r = released;
            released = null;
            if (r != null) {
                r.run();
            }
        }
    }
}
