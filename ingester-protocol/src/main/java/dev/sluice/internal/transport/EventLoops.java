package dev.sluice.internal.transport;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.IoHandlerFactory;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.ThreadFactory;

/**
 * A client's own event loops and the socket channel type that runs on them: Linux's epoll where Netty's native
 * transport loads (the transport gRPC picks for its shared event loops there too), the JDK's selector elsewhere.
 * Epoll writes a message's buffers to the socket by their addresses, where the JDK's channel takes a
 * {@code ByteBuffer} view of each and an outbound entry per write: less CPU on the event loop for every request.
 * Netty's {@code io.grpc.netty.shaded.io.netty.transport.noNative=true} system property turns the native transport
 * off (then the JDK's is used). The loops' threads must be made by {@link #newThread}: Netty pools its per-write
 * objects (outbound entries, buffer wrappers) and keeps a thread's buffer cache only on its own kind of thread, and
 * allocates them anew for every write on any other.
 *
 * @param group the event loops, on the client's own threads
 * @param channelType the socket channel type the loops run
 */
public record EventLoops(EventLoopGroup group, Class<? extends Channel> channelType) {

    /**
     * Starts a client's event loops on the best transport this platform offers.
     *
     * @param threads the number of event loop threads
     * @param factory makes the threads (the client's own, so its shutdown can join them) with {@link #newThread}
     * @return the loops and their channel type
     */
    public static EventLoops start(int threads, ThreadFactory factory) {
        return start(threads, factory, Epoll.isAvailable());
    }

    /**
     * Makes an event loop thread: Netty's {@link FastThreadLocalThread}, on which Netty recycles what it allocates
     * per write and cleans its thread-locals up when the thread ends.
     *
     * @param task the thread's work
     * @param name the thread's name
     * @return the thread, not started
     */
    public static Thread newThread(Runnable task, String name) {
        return new FastThreadLocalThread(task, name);
    }

    /**
     * Starts event loops on epoll, or on the JDK's selector.
     *
     * @param threads the number of event loop threads
     * @param factory makes the threads
     * @param epoll whether to run epoll (only when {@link Epoll#isAvailable()})
     * @return the loops and their channel type
     */
    static EventLoops start(int threads, ThreadFactory factory, boolean epoll) {
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new EventLoops(new MultiThreadIoEventLoopGroup(threads, factory, io),
                epoll ? EpollSocketChannel.class : NioSocketChannel.class);
    }
}
