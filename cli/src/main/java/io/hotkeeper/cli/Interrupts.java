package io.hotkeeper.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * SIGINT and SIGTERM during {@code hotkeeper top}: the first one runs the registered report of the result so far
 * and exits with 128 + the signal's number (130, 143); a second one, while that report is written, exits at once.
 * A signal that comes once the whole result is being written only sets the exit code.
 *
 * <p>Handlers are installed through {@code sun.misc.Signal} of the {@code jdk.unsupported} module, which every
 * JDK exports without flags; it is called reflectively so that compiling needs no internal API. Where it is
 * missing, {@link #install} returns an instance that installs nothing (the JVM's default: exit without a
 * result). A signal this process inherited as ignored (nohup, a background job without job control) stays
 * ignored: the JVM does not replace that disposition. Threads: any. Progress: lock-free.
 */
final class Interrupts {
    private enum Phase { RUNNING, FINISHING, STOPPING }

    /** Exits the JVM: {@code System.exit} for the first signal, {@code Runtime.halt} for the second. */
    interface Exit {
        void exit(int code, boolean now);
    }

    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.RUNNING);
    private final Exit exit;
    private volatile Consumer<String> report = name -> { };
    private volatile int signal;

    Interrupts(Exit exit) {
        this.exit = exit;
    }

    /** An instance that no signal reaches (in-process runs, tests). */
    static Interrupts none() {
        return new Interrupts((code, now) -> { });
    }

    /** Installs the handlers of SIGINT and SIGTERM for this JVM. */
    static Interrupts install() {
        Interrupts interrupts = new Interrupts((code, now) -> {
            if (now) {
                Runtime.getRuntime().halt(code);
            }
            System.exit(code);
        });
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
            Method number = signalClass.getMethod("getNumber");
            Method name = signalClass.getMethod("getName");
            Object handler = Proxy.newProxyInstance(Interrupts.class.getClassLoader(), new Class<?>[] {handlerClass},
                    (proxy, method, args) -> {
                        if (method.getName().equals("handle")) {
                            interrupts.signalled("SIG" + name.invoke(args[0]), (int) number.invoke(args[0]));
                            return null;
                        }
                        return switch (method.getName()) {
                            case "hashCode" -> System.identityHashCode(proxy);
                            case "equals" -> proxy == args[0];
                            default -> "Interrupts.handler";
                        };
                    });
            for (String sig : new String[] {"INT", "TERM"}) {
                handle.invoke(null, signalClass.getConstructor(String.class).newInstance(sig), handler);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // No sun.misc.Signal, or the signal is reserved: the JVM's own handling stays.
        }
        return interrupts;
    }

    /**
     * What the first signal prints: the result so far, marked partial; it gets the signal's name (SIGINT).
     * Runs on the signal's thread.
     */
    void onSignal(Consumer<String> report) {
        this.report = report;
    }

    /**
     * Called by the reading thread once every input has been read: true if it may write the whole result; false
     * if a signal's report has taken over (the caller must then leave the sketch alone: the JVM is exiting).
     */
    boolean finishing() {
        return phase.compareAndSet(Phase.RUNNING, Phase.FINISHING);
    }

    /** {@code normal}, or 128 + the signal's number if a signal came while the whole result was written. */
    int exitCode(int normal) {
        int s = signal;
        return s == 0 ? normal : 128 + s;
    }

    void signalled(String name, int number) {
        if (phase.compareAndSet(Phase.RUNNING, Phase.STOPPING)) {
            signal = number;
            try {
                report.accept(name);
            } finally {
                exit.exit(128 + number, false);
            }
        } else if (phase.get() == Phase.FINISHING && signal == 0) {
            signal = number;
        } else {
            exit.exit(128 + number, true);
        }
    }
}
