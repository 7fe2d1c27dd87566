package io.pqssh.inventory.report;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;

import io.pqssh.inventory.scan.Algorithms;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexInit;
import io.pqssh.inventory.scan.ScanResult;

/** One TARGET object of the JSON report (also one line of JSON Lines), written straight to a generator. */
final class TargetJson {
    private TargetJson() {
    }

    static void write(JsonGenerator g, ScanResult r) throws IOException {
        g.writeStartObject();
        g.writeStringField("target", r.target().toString());
        g.writeStringField("host", r.target().host());
        g.writeNumberField("port", r.target().port());
        g.writeStringField("category", r.category());
        g.writeStringField("status", r.status().jsonName());
        g.writeStringField("evidence", r.evidence().jsonName());
        g.writeStringField("error", r.error());
        g.writeStringField("banner", r.banner());
        g.writeStringField("software", r.software());
        g.writeNumberField("attempts", r.attempts());
        g.writeNumberField("millis", r.millis());
        Classification c = r.classification();
        KexInit k = r.kexInit();
        if (c != null && k != null) {
            strings(g, "kexAlgorithms", k.kex());
            strings(g, "pqKexOffered", c.pqKexOffered());
            g.writeStringField("openssh10Negotiates", c.openssh10Negotiates());
            g.writeStringField("pqsshNegotiates", c.pqsshNegotiates());
            g.writeBooleanField("pqReady", c.pqReady());
            g.writeBooleanField("classicalOnly", c.classicalOnly());
            g.writeBooleanField("strictKex", c.strictKex());
            strings(g, "hostKeyAlgorithms", k.hostKey());
            strings(g, "pqHostKeysOffered", c.pqHostKeysOffered());
            strings(g, "ciphers", k.ciphersS2C());
            strings(g, "macs", k.macsS2C());
            strings(g, "weak", c.weak());
            g.writeArrayFieldStart("weakInfo");
            for (Algorithms.Weakness w : Algorithms.weaknesses(k)) {
                g.writeStartObject();
                g.writeStringField("algorithm", w.kind() + ":" + w.name());
                g.writeStringField("severity", w.severity());
                g.writeStringField("reason", w.reason());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        g.writeArrayFieldStart("hostKeys");
        for (ScanResult.HostKey h : r.hostKeys()) {
            g.writeStartObject();
            g.writeStringField("algorithm", h.algorithm());
            g.writeStringField("keyType", h.keyType());
            g.writeStringField("fingerprint", h.fingerprint());
            g.writeStringField("publicKey", h.publicKey());
            g.writeStringField("error", h.error());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    static void strings(JsonGenerator g, String field, List<String> l) throws IOException {
        g.writeArrayFieldStart(field);
        for (String s : l) {
            g.writeString(s);
        }
        g.writeEndArray();
    }

    static void summary(JsonGenerator g, String field, Map<String, Long> m) throws IOException {
        g.writeObjectFieldStart(field);
        for (Map.Entry<String, Long> e : m.entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
    }
}
