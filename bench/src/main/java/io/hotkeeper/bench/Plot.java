package io.hotkeeper.bench;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Draws the throughput-versus-threads chart of a {@code bench/sweep} run: one line per benchmark and parameter
 * set, from the JMH JSON result of each thread count (read with Jackson), as a PNG (JFreeChart, headless).
 *
 * <p>Run: {@code java -cp bench/target/benchmarks.jar io.hotkeeper.bench.Plot OUT.png t1.json t2.json ...}
 * (bench/sweep does this itself).
 */
public final class Plot {
    private Plot() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: Plot OUT.png JMH.json... ");
            System.exit(2);
        }
        System.setProperty("java.awt.headless", "true");
        List<Path> inputs = java.util.Arrays.stream(args, 1, args.length).map(Path::of).toList();
        Map<String, XYSeries> series = read(inputs);
        if (series.isEmpty()) {
            System.err.println("Plot: no throughput rows in " + inputs);
            System.exit(1);
        }
        XYSeriesCollection data = new XYSeriesCollection();
        series.values().forEach(data::addSeries);
        String title = "Throughput vs threads (" + System.getProperty("plot.title", "bench/sweep") + ")";
        JFreeChart chart = ChartFactory.createXYLineChart(title, "threads (pinned CPUs)", "M ops/s (all threads)",
                data, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = chart.getXYPlot();
        NumberAxis threads = (NumberAxis) plot.getDomainAxis();
        threads.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        ((org.jfree.chart.renderer.xy.XYLineAndShapeRenderer) plot.getRenderer()).setDefaultShapesVisible(true);
        ChartUtils.saveChartAsPNG(Path.of(args[0]).toFile(), chart, 1100, 650);
        System.out.println("Plot: " + args[0] + " (" + series.size() + " lines)");
    }

    /** JMH JSON results (one file per thread count), throughput rows only, grouped into lines. */
    static Map<String, XYSeries> read(List<Path> jsonFiles) throws IOException {
        Map<String, XYSeries> out = new LinkedHashMap<>();
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (Path file : jsonFiles) {
            for (com.fasterxml.jackson.databind.JsonNode row : json.readTree(file.toFile())) {
                String unit = row.path("primaryMetric").path("scoreUnit").asText();
                if (!unit.startsWith("ops/")) {
                    continue;
                }
                StringBuilder name = new StringBuilder(row.path("benchmark").asText()
                        .replaceFirst("^.*\\.(\\w+Benchmark\\.)", "$1"));
                row.path("params").properties().forEach(p -> name.append(' ').append(p.getKey()).append('=')
                        .append(p.getValue().asText()));
                double perUs = row.path("primaryMetric").path("score").asDouble() * scaleToPerMicro(unit);
                out.computeIfAbsent(name.toString(), XYSeries::new).add(row.path("threads").asInt(), perUs);
            }
        }
        return out;
    }

    private static double scaleToPerMicro(String unit) {
        return switch (unit) {
            case "ops/us" -> 1;
            case "ops/ms" -> 1e-3;
            case "ops/s" -> 1e-6;
            case "ops/ns" -> 1e3;
            default -> throw new IllegalArgumentException("unit=" + unit + ": not a throughput unit");
        };
    }
}
