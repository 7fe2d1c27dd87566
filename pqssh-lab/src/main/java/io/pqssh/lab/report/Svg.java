package io.pqssh.lab.report;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A minimal SVG writer for the lab's two chart shapes (lines over x, stacked bars), no dependency. */
final class Svg {
    private static final String[] COLORS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    private static final int W = 900;
    private static final int H = 520;
    private static final int L = 80;
    private static final int R = 260;
    private static final int T = 40;
    private static final int B = 60;

    private Svg() {
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String f(double d) {
        return String.format(Locale.ROOT, "%.1f", d);
    }

    private static StringBuilder head(String title, String xLabel, String yLabel) {
        StringBuilder b = new StringBuilder();
        b.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W).append("\" height=\"").append(H)
                .append("\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        b.append("<text x=\"").append(W / 2).append("\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">")
                .append(esc(title)).append("</text>\n");
        b.append("<text x=\"").append(L + (W - L - R) / 2).append("\" y=\"").append(H - 15)
                .append("\" text-anchor=\"middle\">").append(esc(xLabel)).append("</text>\n");
        b.append("<text x=\"18\" y=\"").append(T + (H - T - B) / 2).append("\" text-anchor=\"middle\" transform=\"rotate(-90 18 ")
                .append(T + (H - T - B) / 2).append(")\">").append(esc(yLabel)).append("</text>\n");
        b.append("<line x1=\"").append(L).append("\" y1=\"").append(H - B).append("\" x2=\"").append(W - R)
                .append("\" y2=\"").append(H - B).append("\" stroke=\"black\"/>\n");
        b.append("<line x1=\"").append(L).append("\" y1=\"").append(T).append("\" x2=\"").append(L).append("\" y2=\"")
                .append(H - B).append("\" stroke=\"black\"/>\n");
        return b;
    }

    private static void yTicks(StringBuilder b, double yMax) {
        for (int i = 0; i <= 5; i++) {
            double v = yMax * i / 5;
            double y = H - B - (H - T - B) * i / 5.0;
            b.append("<text x=\"").append(L - 6).append("\" y=\"").append(f(y + 4)).append("\" text-anchor=\"end\">")
                    .append(f(v)).append("</text>\n");
        }
    }

    private static void legend(StringBuilder b, int i, String name) {
        int y = T + 10 + i * 18;
        b.append("<rect x=\"").append(W - R + 15).append("\" y=\"").append(y - 9).append("\" width=\"12\" height=\"12\" fill=\"")
                .append(COLORS[i % COLORS.length]).append("\"/><text x=\"").append(W - R + 32).append("\" y=\"")
                .append(y + 2).append("\">").append(esc(name)).append("</text>\n");
    }

    /**
     * series name → points {x, y}. The x axis spans the values (a single value in the middle of ±max(1, 25 %)), the
     * y axis starts at 0; every point gets a marker, so a one-point series is visible.
     */
    static String lines(String title, String xLabel, String yLabel, Map<String, List<double[]>> series) {
        StringBuilder b = head(title, xLabel, yLabel);
        double xMin = Double.MAX_VALUE;
        double xMax = -Double.MAX_VALUE;
        double yMax = -Double.MAX_VALUE;
        for (List<double[]> pts : series.values()) {
            for (double[] p : pts) {
                xMin = Math.min(xMin, p[0]);
                xMax = Math.max(xMax, p[0]);
                yMax = Math.max(yMax, p[1]);
            }
        }
        double[] xr = HandshakeReport.axisRange(xMin, xMax, false);
        double[] yr = HandshakeReport.axisRange(0, yMax, true);
        xMin = xr[0];
        xMax = xr[1];
        yTicks(b, yr[1]);
        for (int t = 0; t <= 4; t++) {
            double x = xMin + (xMax - xMin) * t / 4;
            b.append("<text x=\"").append(f(L + (x - xMin) / (xMax - xMin) * (W - L - R))).append("\" y=\"")
                    .append(H - B + 18).append("\" text-anchor=\"middle\">").append(tick(x, xMax - xMin))
                    .append("</text>\n");
        }
        int i = 0;
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            StringBuilder pts = new StringBuilder();
            for (double[] p : e.getValue()) {
                double x = L + (p[0] - xMin) / (xMax - xMin) * (W - L - R);
                double y = H - B - p[1] / yr[1] * (H - T - B);
                pts.append(f(x)).append(',').append(f(y)).append(' ');
                b.append("<circle cx=\"").append(f(x)).append("\" cy=\"").append(f(y)).append("\" r=\"4\" fill=\"")
                        .append(COLORS[i % COLORS.length]).append("\"/>\n");
            }
            if (e.getValue().size() > 1) {
                b.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(COLORS[i % COLORS.length])
                        .append("\" points=\"").append(pts.toString().trim()).append("\"/>\n");
            }
            legend(b, i, e.getKey());
            i++;
        }
        return b.append("</svg>\n").toString();
    }

    /** A tick label with as many decimals as the axis span needs (RTT 67, loss 0.5). */
    private static String tick(double v, double span) {
        return String.format(Locale.ROOT, span >= 20 ? "%.0f" : span >= 2 ? "%.1f" : "%.2f", v);
    }

    /** category → stack values (in the order of stackNames). */
    static String stackedBars(String title, String yLabel, List<String> stackNames, Map<String, double[]> bars,
            String note) {
        StringBuilder b = head(title, "configuration", yLabel);
        if (note != null) {
            b.append("<text x=\"").append(L + (W - L - R) / 2).append("\" y=\"").append(T + (H - T - B) / 2)
                    .append("\" text-anchor=\"middle\" fill=\"#555\">").append(esc(note)).append("</text>\n");
        }
        double yMax = 1;
        for (double[] v : bars.values()) {
            yMax = Math.max(yMax, java.util.Arrays.stream(v).sum());
        }
        yMax *= 1.1;
        yTicks(b, yMax);
        int n = Math.max(1, bars.size());
        double slot = (W - L - R) / (double) n;
        int k = 0;
        for (Map.Entry<String, double[]> e : bars.entrySet()) {
            double x = L + k * slot + slot * 0.15;
            double base = 0;
            for (int s = 0; s < e.getValue().length; s++) {
                double h = e.getValue()[s] / yMax * (H - T - B);
                double y = H - B - base - h;
                b.append("<rect x=\"").append(f(x)).append("\" y=\"").append(f(y)).append("\" width=\"")
                        .append(f(slot * 0.7)).append("\" height=\"").append(f(h)).append("\" fill=\"")
                        .append(COLORS[s % COLORS.length]).append("\"/>\n");
                base += h;
            }
            double cx = x + slot * 0.35;
            b.append("<text x=\"").append(f(cx)).append("\" y=\"").append(H - B + 14)
                    .append("\" text-anchor=\"end\" font-size=\"10\" transform=\"rotate(-30 ").append(f(cx)).append(' ')
                    .append(H - B + 14).append(")\">").append(esc(e.getKey())).append("</text>\n");
            k++;
        }
        for (int s = 0; s < stackNames.size(); s++) {
            legend(b, s, stackNames.get(s));
        }
        return b.append("</svg>\n").toString();
    }
}
