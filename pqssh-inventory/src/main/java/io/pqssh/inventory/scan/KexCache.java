package io.pqssh.inventory.scan;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Classification per distinct KEXINIT, remembered for the last {@value #SIZE} distinct ones. An Internet scan has a
 * few thousand distinct server configurations among millions of hosts, so classifying (and rendering) each once
 * instead of per host is most of the ingest's speed; the bound keeps memory constant.
 */
public final class KexCache {
    /** Distinct KEXINITs kept; the CBOM keeps as many offers. */
    public static final int SIZE = 4096;

    /** A classified KEXINIT and its rendered report fragment (filled in by the first report that needs it). */
    public static final class Entry {
        private final KexInit kexInit;
        private final Classification classification;
        private final List<Algorithms.Weakness> weaknesses;
        private volatile Object jsonFragment;
        private volatile String documentFragment;

        Entry(KexInit k) {
            this.kexInit = k;
            this.classification = Classification.compute(k);
            this.weaknesses = List.copyOf(Algorithms.weaknesses(k));
        }

        public KexInit kexInit() {
            return kexInit;
        }

        public Classification classification() {
            return classification;
        }

        public List<Algorithms.Weakness> weaknesses() {
            return weaknesses;
        }

        /** Whatever the report writer cached for this KEXINIT (its rendered JSON), or null. */
        public Object jsonFragment() {
            return jsonFragment;
        }

        public void jsonFragment(Object s) {
            jsonFragment = s;
        }

        /** The indented fragment the JSON document writes for this KEXINIT (see the report writer), or null. */
        public String documentFragment() {
            return documentFragment;
        }

        public void documentFragment(String s) {
            documentFragment = s;
        }
    }

    private static final Map<KexInit, Entry> CACHE = new LinkedHashMap<>(SIZE * 2, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<KexInit, KexCache.Entry> eldest) {
            return size() > SIZE;
        }
    };

    private KexCache() {
    }

    public static Entry of(KexInit k) {
        synchronized (CACHE) {
            Entry e = CACHE.get(k);
            if (e == null) {
                e = new Entry(k);
                CACHE.put(k, e);
            }
            return e;
        }
    }
}
