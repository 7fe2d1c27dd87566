package io.pqssh.inventory.report;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;

import io.pqssh.inventory.scan.Algorithms;
import io.pqssh.inventory.scan.Classification;
import io.pqssh.inventory.scan.KexCache;
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
            if (g.getPrettyPrinter() == null || g.getPrettyPrinter() instanceof MinimalPrettyPrinter) {
                // compact output: the KEXINIT part is the same for every host with this configuration
                KexCache.Entry e = KexCache.of(k);
                SerializedString f = (SerializedString) e.jsonFragment();
                if (f == null) {
                    f = new SerializedString(fragment(k, e.classification(), e.weaknesses()));
                    e.jsonFragment(f);
                }
                g.writeFieldName("kexAlgorithms");
                g.writeRawValue(f);
            } else if (g.getPrettyPrinter() != null && g.getPrettyPrinter().getClass() == DefaultPrettyPrinter.class
                    && depth(g) == DOCUMENT_DEPTH) {
                // the JSON document: the indented KEXINIT part is also the same for every host with this
                // configuration, as every target sits at the same depth (root object, targets array, target)
                KexCache.Entry e = KexCache.of(k);
                String f = e.documentFragment();
                if (f == null) {
                    f = indentedFragment(k, e.classification(), e.weaknesses());
                    e.documentFragment(f);
                }
                // the fragment starts with the separator before kexAlgorithms; the generator still counts the
                // fields before it, so the next field gets its separator as before
                g.writeRaw(f);
            } else {
                kexFields(g, k, c, Algorithms.weaknesses(k));
            }
        }
        if (r.policyFailures() != null) {
            strings(g, "policy", r.policyFailures());
        }
        if (r.status() == ScanResult.Status.SSH) {
            g.writeStringField("readiness", r.readiness());
        }
        if (r.auth() != null) {
            ScanResult.UserAuth a = r.auth();
            g.writeObjectFieldStart("auth");
            strings(g, "methods", a.methods());
            if (a.serverSigAlgs() == null) {
                g.writeNullField("serverSigAlgs");
            } else {
                strings(g, "serverSigAlgs", a.serverSigAlgs());
            }
            strings(g, "pqMethods", a.pqMethods());
            strings(g, "pqSigAlgs", a.pqSigAlgs());
            g.writeArrayFieldStart("sigAlgNames");
            for (String n : a.pqSigAlgs()) {
                g.writeString(n + "=" + io.pqssh.inventory.scan.Algorithms.opensshNaming(n));
            }
            g.writeEndArray();
            g.writeBooleanField("pq", a.pq());
            g.writeStringField("error", a.error());
            g.writeEndObject();
        }
        g.writeArrayFieldStart("hostKeys");
        for (ScanResult.HostKey h : r.hostKeys()) {
            g.writeStartObject();
            g.writeStringField("algorithm", h.algorithm());
            g.writeStringField("keyType", h.keyType());
            g.writeStringField("fingerprint", h.fingerprint());
            g.writeStringField("publicKey", h.publicKey());
            if (h.bits() > 0) {
                g.writeNumberField("bits", h.bits());
            } else {
                g.writeNullField("bits");
            }
            g.writeStringField("error", h.error());
            if (h.certificate() != null) {
                certificate(g, h.certificate());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /** A host key's {@code certificate} object (see docs/inventory.md). */
    private static void certificate(JsonGenerator g, io.pqssh.inventory.scan.HostCertificate c) throws IOException {
        g.writeObjectFieldStart("certificate");
        g.writeStringField("certType", c.certType());
        g.writeStringField("type", c.type());
        g.writeStringField("keyType", c.keyType());
        g.writeStringField("keyFamily", c.keyFamily());
        g.writeStringField("caKeyType", c.caKeyType());
        g.writeStringField("caFamily", c.caFamily());
        g.writeBooleanField("caPostQuantum", c.caPostQuantum());
        g.writeStringField("caFingerprint", c.caFingerprint());
        g.writeStringField("keyId", c.keyId());
        g.writeStringField("serial", c.serialText());
        strings(g, "principals", c.principals());
        g.writeStringField("validAfter", c.validAfter());
        g.writeStringField("validBefore", c.validBefore());
        g.writeBooleanField("classicalCa", c.classicalCa());
        g.writeEndObject();
    }

    /** Nesting of a target object in the JSON document: root object, targets array, the target. */
    private static final int DOCUMENT_DEPTH = 3;

    private static int depth(JsonGenerator g) {
        int d = 0;
        for (com.fasterxml.jackson.core.JsonStreamContext x = g.getOutputContext(); x != null && !x.inRoot();
                x = x.getParent()) {
            d++;
        }
        return d;
    }

    /**
     * The KEXINIT fields of a target as the document's pretty printer writes them at {@link #DOCUMENT_DEPTH}, with
     * the separator before the first one: {@code ,\n    "kexAlgorithms" : [ ... ], ... "info" : [ ... ]}.
     */
    private static String indentedFragment(KexInit k, Classification c, List<Algorithms.Weakness> w)
            throws IOException {
        java.io.StringWriter sw = new java.io.StringWriter(4096);
        try (JsonGenerator g = ScanSinks.JSON.createGenerator(sw)) {
            // a new one, as the document's (a copy of the document's would carry its current nesting)
            g.setPrettyPrinter(new DefaultPrettyPrinter());
            g.writeStartObject();
            g.writeArrayFieldStart("targets");
            g.writeStartObject();
            g.writeNumberField("millis", 0);
            g.flush();
            int start = sw.getBuffer().length();
            kexFields(g, k, c, w);
            g.flush();
            return sw.getBuffer().substring(start);
        }
    }

    /** The kexAlgorithms value and the fields after it, compact: {@code [..],"pqKexOffered":[..],...}. */
    private static String fragment(KexInit k, Classification c, List<Algorithms.Weakness> w) throws IOException {
        java.io.StringWriter sw = new java.io.StringWriter(2048);
        try (JsonGenerator g = ScanSinks.JSON.createGenerator(sw)) {
            g.writeStartObject();
            kexFields(g, k, c, w);
            g.writeEndObject();
        }
        String s = sw.toString();
        String head = "{\"kexAlgorithms\":";
        return s.substring(head.length(), s.length() - 1);
    }

    private static void kexFields(JsonGenerator g, KexInit k, Classification c, List<Algorithms.Weakness> weak)
            throws IOException {
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
        g.writeArrayFieldStart("info");
        for (Algorithms.Weakness w : weak) {
            if (!w.weak()) {
                g.writeString(w.kind() + ":" + w.name());
            }
        }
        g.writeEndArray();
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
