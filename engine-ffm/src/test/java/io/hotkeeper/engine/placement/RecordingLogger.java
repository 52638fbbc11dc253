package io.hotkeeper.engine.placement;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link System.Logger} that keeps every line it is given, with its level. */
final class RecordingLogger implements System.Logger {

    record Line(Level level, String message) {
    }

    final List<Line> lines = new CopyOnWriteArrayList<>();

    @Override
    public String getName() {
        return RegionAllocator.LOGGER_NAME;
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        lines.add(new Line(level, msg));
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        lines.add(new Line(level, params == null || params.length == 0 ? format : MessageFormat.format(format, params)));
    }
}
