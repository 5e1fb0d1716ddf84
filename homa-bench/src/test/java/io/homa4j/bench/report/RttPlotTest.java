package io.homa4j.bench.report;

import io.homa4j.bench.driver.LatencyRecorder;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RttPlotTest {
    private static Histogram histogram(long... micros) {
        Histogram h = LatencyRecorder.newHistogram();
        for (long us : micros) {
            h.recordValue(us * 1_000);
        }
        return h;
    }

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<String> texts(Document doc) {
        NodeList nodes = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(nodes.item(i).getTextContent());
        }
        return texts;
    }

    @Test
    void wellFormedSvgWithP50AndP99CurvesPerProtocolAxesAndLegend() throws Exception {
        ResultSet set = new ResultSet()
                .add("homa", 315, histogram(20, 25, 30, 400)).add("homa", 1_000_000, histogram(900, 1200))
                .add("tcp", 315, histogram(60, 70, 3_000)).add("tcp", 1_000_000, histogram(1500, 9000))
                .add("homa", 6_387, histogram(40)).add("tcp", 6_387, histogram(80));
        Document doc = parse(RttPlot.render(set, "W4 <80%> & friends"));

        Element root = doc.getDocumentElement();
        assertEquals("svg", root.getLocalName());
        assertEquals("http://www.w3.org/2000/svg", root.getNamespaceURI());
        NodeList lines = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "polyline");
        assertEquals(4, lines.getLength(), "P50 and P99 for two protocols");
        for (int i = 0; i < lines.getLength(); i++) {
            Element line = (Element) lines.item(i);
            assertEquals(3, line.getAttribute("points").trim().split("\\s+").length, "one point per bucket");
        }
        List<String> texts = texts(doc);
        assertTrue(texts.contains("W4 <80%> & friends"), "title escaped and kept: " + texts);
        assertTrue(texts.stream().anyMatch(t -> t.startsWith("Round-trip time")), "y label");
        assertTrue(texts.stream().anyMatch(t -> t.startsWith("Message length")), "x label");
        for (String legend : new String[] {"homa P50", "homa P99", "tcp P50", "tcp P99"}) {
            assertTrue(texts.contains(legend), "legend " + legend + " in " + texts);
        }
        for (String tick : new String[] {"315 B", "6.39 KB", "1 MB", "10 \u00b5s", "100 \u00b5s", "1 ms", "10 ms"}) {
            assertTrue(texts.contains(tick), "tick " + tick + " in " + texts);
        }
    }

    @Test
    void slowerCurvesArePlacedHigher() throws Exception {
        ResultSet set = new ResultSet().add("homa", 100, histogram(10)).add("tcp", 100, histogram(1_000));
        Document doc = parse(RttPlot.render(set, "t"));
        NodeList lines = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "polyline");
        double homaY = Double.NaN;
        double tcpY = Double.NaN;
        for (int i = 0; i < lines.getLength(); i++) {
            Element e = (Element) lines.item(i);
            if (e.getAttribute("data-percentile").equals("p50")) {
                double y = Double.parseDouble(e.getAttribute("points").split(",")[1]);
                if (e.getAttribute("data-protocol").equals("homa")) {
                    homaY = y;
                } else {
                    tcpY = y;
                }
            }
        }
        assertTrue(tcpY < homaY, "SVG y grows downwards: 1 ms above 10 us (tcp " + tcpY + ", homa " + homaY + ")");
    }

    @Test
    void notesAreShownUnderThePlot() throws Exception {
        ResultSet set = new ResultSet().add("homa", 100, histogram(10));
        Document doc = parse(RttPlot.render(set, "t", java.util.List.of("homa: 3 of 9 calls failed <sic>")));
        assertTrue(texts(doc).contains("homa: 3 of 9 calls failed <sic>"), texts(doc).toString());
    }

    @Test
    void lengthLabels() {
        assertEquals("315 B", RttPlot.lengthLabel(315));
        assertEquals("6.39 KB", RttPlot.lengthLabel(6_387));
        assertEquals("49.4 KB", RttPlot.lengthLabel(49_408));
        assertEquals("120 KB", RttPlot.lengthLabel(120_373));
        assertEquals("273 KB", RttPlot.lengthLabel(273_075));
        assertEquals("1 MB", RttPlot.lengthLabel(1_000_000));
        assertEquals("1 KB", RttPlot.lengthLabel(1_000));
        assertEquals("1.5 MB", RttPlot.lengthLabel(1_500_000));
        assertEquals("10 \u00b5s", RttPlot.decadeLabel(1));
        assertEquals("1 ms", RttPlot.decadeLabel(3));
        assertEquals("100 ms", RttPlot.decadeLabel(5));
        assertEquals("10 s", RttPlot.decadeLabel(7));
    }

    /** The W4 buckets as the talk's figure has them: the narrow tail buckets must all be labelled too. */
    @Test
    void everyBucketBoundIsLabelledEvenWhereTheTailBucketsAreNarrow() throws Exception {
        int[] bounds = {315, 376, 502, 561, 662, 960, 6_387, 49_408, 120_373, 273_075, 1_000_000};
        long[] counts = {10, 10, 10, 10, 10, 10, 10, 10, 10, 5, 5};
        ResultSet set = new ResultSet();
        for (int i = 0; i < bounds.length; i++) {
            Histogram h = LatencyRecorder.newHistogram();
            h.recordValueWithCount(100_000, counts[i]);
            set.add("homa", bounds[i], h);
        }
        Document doc = parse(RttPlot.render(set, "t"));
        NodeList texts = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        List<double[]> boxes = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < texts.getLength(); i++) {
            Element e = (Element) texts.item(i);
            if (e.getAttribute("class").equals("xtick")) {
                labels.add(e.getTextContent());
                double x = Double.parseDouble(e.getAttribute("x"));
                double half = e.getTextContent().length() * 3.6;
                boxes.add(new double[] {x - half, x + half, Double.parseDouble(e.getAttribute("y"))});
            }
        }
        for (int b : bounds) {
            assertTrue(labels.contains(RttPlot.lengthLabel(b)), RttPlot.lengthLabel(b) + " in " + labels);
        }
        for (int i = 0; i < boxes.size(); i++) {
            for (int j = i + 1; j < boxes.size(); j++) {
                boolean sameRow = boxes.get(i)[2] == boxes.get(j)[2];
                boolean overlap = boxes.get(i)[0] < boxes.get(j)[1] && boxes.get(j)[0] < boxes.get(i)[1];
                assertTrue(!(sameRow && overlap), labels.get(i) + " overlaps " + labels.get(j));
            }
        }
    }

    @Test
    void theLegendShowsEachSeriesMarker() throws Exception {
        ResultSet set = new ResultSet().add("homa", 100, histogram(10)).add("tcp", 100, histogram(30));
        Document doc = parse(RttPlot.render(set, "t"));
        // one marker per point (2 protocols x 2 percentiles x 1 bucket) plus one per legend entry
        int circles = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "circle").getLength();
        assertEquals(2 + 2, circles, "P50: filled circles, in the curves and the legend");
        int squares = 0;
        NodeList rects = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "rect");
        for (int i = 0; i < rects.getLength(); i++) {
            squares += ((Element) rects.item(i)).getAttribute("width").equals("7") ? 1 : 0;
        }
        assertEquals(2 + 2, squares, "P99: open squares, in the curves and the legend");
    }

    @Test
    void theYAxisTitleKeepsClearOfTheTickLabels() throws Exception {
        ResultSet set = new ResultSet().add("homa", 100, histogram(10)).add("tcp", 100, histogram(200_000));
        Document doc = parse(RttPlot.render(set, "t"));
        NodeList texts = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        double titleRight = Double.NaN;
        double labelsLeft = Double.POSITIVE_INFINITY;
        for (int i = 0; i < texts.getLength(); i++) {
            Element e = (Element) texts.item(i);
            String text = e.getTextContent();
            if (text.startsWith("Round-trip time")) {
                titleRight = Double.parseDouble(e.getAttribute("x")) + 4; // rotated: the glyphs sit left of x
            } else if (text.endsWith(" ms") || text.endsWith("\u00b5s") || text.endsWith(" s")) {
                // right-aligned at x; about 7.5 px per character at 13 px
                labelsLeft = Math.min(labelsLeft, Double.parseDouble(e.getAttribute("x")) - 7.5 * text.length());
            }
        }
        assertTrue(titleRight < labelsLeft, "y title ends at " + titleRight + ", labels start at " + labelsLeft);
    }

    @Test
    void anOverloadedFigureCarriesTheMarkAndTheReasons() throws Exception {
        ResultSet set = new ResultSet().add("homa", 100, histogram(10));
        OverloadVerdict verdict = new OverloadVerdict(List.of("homa OVERLOADED: 3 calls skipped"), true);
        Document doc = parse(RttPlot.render(set, "W4\n2026-12-03, commit abc", List.of(), verdict));
        List<String> texts = texts(doc);
        assertTrue(texts.contains("OVERLOADED"), texts.toString());
        assertTrue(texts.contains("homa OVERLOADED: 3 calls skipped"), texts.toString());
        assertTrue(texts.contains("W4") && texts.contains("2026-12-03, commit abc"), "title lines " + texts);
        assertTrue(!texts(parse(RttPlot.render(set, "t"))).contains("OVERLOADED"));
    }

    @Test
    void thePapersFigureStacksSlowdownWithTheLimitOverRtt() throws Exception {
        ResultSet rtts = new ResultSet()
                .add("homa", 315, histogram(20, 25, 30, 400)).add("homa", 1_000_000, histogram(900, 1200))
                .add("tcp", 315, histogram(60, 70, 3_000)).add("tcp", 1_000_000, histogram(1500, 9000));
        // slowdown x 1000 is held as RTT nanoseconds are: histogram(us) holds us x 1000, i.e. a slowdown of us
        ResultSet slowdowns = new ResultSet()
                .add("homa", 315, histogram(2, 3)).add("homa", 1_000_000, histogram(4))
                .add("tcp", 315, histogram(9)).add("tcp", 1_000_000, histogram(12))
                .add("homa-ideal", 315, histogram(1, 2)).add("homa-ideal", 1_000_000, histogram(2));
        Document doc = parse(RttPlot.renderSlowdownAndRtt(rtts, slowdowns, "W4\nsubtitle", List.of(),
                new OverloadVerdict(List.of(), false)));
        NodeList lines = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "polyline");
        assertEquals(6 + 4, lines.getLength(), "P50 and P99 of three protocols over those of two");
        List<String> ideal = new ArrayList<>();
        for (int i = 0; i < lines.getLength(); i++) {
            Element line = (Element) lines.item(i);
            if (line.getAttribute("data-protocol").equals("homa-ideal")) {
                ideal.add(line.getAttribute("stroke"));
            }
        }
        assertEquals(List.of("#2ca02c", "#2ca02c"), ideal, "the limit: one colour of its own");
        List<String> texts = texts(doc);
        assertTrue(texts.stream().anyMatch(t -> t.startsWith("Slowdown")), texts.toString());
        assertTrue(texts.stream().anyMatch(t -> t.startsWith("Round-trip time")), texts.toString());
        assertTrue(texts.contains("homa-ideal P99") && texts.contains("1 MB"), texts.toString());
        assertEquals(1, texts.stream().filter(t -> t.equals("1 MB")).count(), "x labels under the lower panel only");
    }

    /** The series' colours by protocol, each protocol's P50 and P99 curves together. */
    private static Map<String, Set<String>> colours(Document doc) {
        NodeList lines = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "polyline");
        Map<String, Set<String>> colours = new TreeMap<>();
        for (int i = 0; i < lines.getLength(); i++) {
            Element line = (Element) lines.item(i);
            colours.computeIfAbsent(line.getAttribute("data-protocol"), p -> new TreeSet<>())
                    .add(line.getAttribute("stroke"));
        }
        return colours;
    }

    /**
     * Every combination of the known protocols, so each sits at every position it can: a protocol keeps one colour
     * in all of them, and no two protocols of a figure share one; unknown names take colours no known one has.
     */
    @Test
    void eachProtocolHasItsOwnColourWhateverElseIsPlotted() throws Exception {
        List<String> known = List.of("homa", "tcp", "grpc-homa", "grpc-tcp", "homa-ideal");
        Map<String, String> colourOf = new HashMap<>();
        for (int subset = 1; subset < 1 << known.size(); subset++) {
            ResultSet set = new ResultSet();
            for (int i = 0; i < known.size(); i++) {
                if ((subset & 1 << i) != 0) {
                    set.add(known.get(i), 100, histogram(10 + i));
                }
            }
            Map<String, Set<String>> colours = colours(parse(RttPlot.render(set, "t")));
            assertEquals(new TreeSet<>(set.protocols()), colours.keySet());
            for (Map.Entry<String, Set<String>> e : colours.entrySet()) {
                assertEquals(1, e.getValue().size(), e.getKey() + "'s P50 and P99: " + e.getValue());
                String colour = e.getValue().iterator().next();
                assertEquals(colourOf.computeIfAbsent(e.getKey(), p -> colour), colour,
                        e.getKey() + " changed colour with " + set.protocols());
            }
        }
        assertEquals(known.size(), new HashSet<>(colourOf.values()).size(), "distinct colours: " + colourOf);

        ResultSet withOthers = new ResultSet().add("homa", 100, histogram(10)).add("quic", 100, histogram(20))
                .add("sctp", 100, histogram(30));
        Map<String, Set<String>> colours = colours(parse(RttPlot.render(withOthers, "t")));
        assertEquals(Set.of(colourOf.get("homa")), colours.get("homa"));
        Set<String> distinct = new HashSet<>(colourOf.values());
        for (String other : List.of("quic", "sctp")) {
            assertEquals(1, colours.get(other).size(), colours.toString());
            assertTrue(distinct.add(colours.get(other).iterator().next()), other + " shares a colour: " + colours);
        }
    }

    /** The README figure's subtitle ran off both edges: every title line now fits the 900 px figure. */
    @Test
    void aLongSubtitleIsWrappedToFitTheFigure() throws Exception {
        String subtitle = "3 repeats of 204 s per protocol (merged) \u00b7 largest bucket 120 KB-1 MB (10% of messages)"
                + " \u00b7 2026-12-06 19:58 UTC \u00b7 commit 7ed40f6 \u00b7 load average 0.00 0.01 0.05"
                + " \u00b7 link 50 Mbit/s chosen by calibration (machine 41% busy)";
        ResultSet set = new ResultSet().add("homa", 100, histogram(10));
        Document doc = parse(RttPlot.render(set, "W4 (max 1 MB) at 80% load, emulated rack: Homa vs TCP\n" + subtitle));
        NodeList nodes = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "text");
        StringBuilder joined = new StringBuilder();
        int subtitles = 0;
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            if (e.getAttribute("class").equals("subtitle")) {
                subtitles++;
                // centred at 450: half of it at 6.6 px per character must stay inside the figure
                assertTrue(e.getTextContent().length() * 6.6 / 2 <= 450 - 16, e.getTextContent());
                joined.append(joined.length() == 0 ? "" : " \u00b7 ").append(e.getTextContent());
            }
        }
        assertTrue(subtitles >= 2, "wrapped into " + subtitles + " lines");
        assertEquals(subtitle, joined.toString(), "nothing lost in the wrapping");
        assertEquals(List.of("a b", "c"), RttPlot.wrap("a b c", 3));
        String note = "homa OVERLOADED: send lag in the client P99 26.7 s > 5 ms; 53.6% of calls waited for the"
                + " outstanding cap (> 1%); 506 calls unfinished";
        List<String> notes = texts(parse(RttPlot.render(set, "t", List.of(note))));
        assertTrue(notes.stream().noneMatch(t -> t.equals(note)), "the long note is wrapped");
        assertTrue(notes.stream().anyMatch(t -> t.startsWith("homa OVERLOADED: send lag")), notes.toString());
        assertTrue(String.join(" ", notes).contains(note), "nothing lost in the wrapping: " + notes);
    }
}
