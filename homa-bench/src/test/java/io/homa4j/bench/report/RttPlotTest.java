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
import java.util.List;

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
        for (String tick : new String[] {"315", "6387", "1M", "10 \u00b5s", "100 \u00b5s", "1 ms", "10 ms"}) {
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
        assertEquals("315", RttPlot.lengthLabel(315));
        assertEquals("6387", RttPlot.lengthLabel(6_387));
        assertEquals("49.4K", RttPlot.lengthLabel(49_408));
        assertEquals("273.1K", RttPlot.lengthLabel(273_075));
        assertEquals("1M", RttPlot.lengthLabel(1_000_000));
        assertEquals("10 \u00b5s", RttPlot.decadeLabel(1));
        assertEquals("1 ms", RttPlot.decadeLabel(3));
        assertEquals("100 ms", RttPlot.decadeLabel(5));
        assertEquals("10 s", RttPlot.decadeLabel(7));
    }
}
