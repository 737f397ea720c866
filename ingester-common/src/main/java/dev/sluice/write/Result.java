package dev.sluice.write;

import java.util.Objects;
import java.util.function.Function;

/**
 * Either a success value or an error value, never both.
 *
 * @param <T> the success type
 * @param <E> the error type
 */
public final class Result<T, E> {
    private final T ok;
    private final E err;

    private Result(T ok, E err) {
        this.ok = ok;
        this.err = err;
    }

    /**
     * Wraps a success.
     *
     * @param value the value (not null)
     * @param <T> success type
     * @param <E> error type
     * @return the result
     */
    public static <T, E> Result<T, E> ok(T value) {
        return new Result<>(Objects.requireNonNull(value, "value"), null);
    }

    /**
     * Wraps an error.
     *
     * @param error the error (not null)
     * @param <T> success type
     * @param <E> error type
     * @return the result
     */
    public static <T, E> Result<T, E> err(E error) {
        return new Result<>(null, Objects.requireNonNull(error, "error"));
    }

    /**
     * Tells whether this is a success.
     *
     * @return true for a success
     */
    public boolean isOk() {
        return err == null;
    }

    /**
     * Returns the success value.
     *
     * @return the value
     * @throws IllegalStateException when this is an error (the message carries the error)
     */
    public T getOk() {
        if (err != null) {
            throw new IllegalStateException("result is an error: " + err);
        }
        return ok;
    }

    /**
     * Returns the error value.
     *
     * @return the error
     * @throws IllegalStateException when this is a success
     */
    public E getErr() {
        if (err == null) {
            throw new IllegalStateException("result is a success: " + ok);
        }
        return err;
    }

    /**
     * Transforms the success value.
     *
     * @param f the function
     * @param <U> the new success type
     * @return a result with the transformed value, or this error
     */
    public <U> Result<U, E> map(Function<? super T, ? extends U> f) {
        return err == null ? Result.ok(f.apply(ok)) : Result.err(err);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Result && Objects.equals(((Result<?, ?>) o).ok, ok) && Objects.equals(((Result<?, ?>) o).err, err);
    }

    @Override
    public int hashCode() {
        return Objects.hash(ok, err);
    }

    @Override
    public String toString() {
        return err == null ? "Ok(" + ok + ")" : "Err(" + err + ")";
    }
}
