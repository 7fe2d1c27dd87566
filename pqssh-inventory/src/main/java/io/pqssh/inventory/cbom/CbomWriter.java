package io.pqssh.inventory.cbom;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;

import org.cyclonedx.Version;
import org.cyclonedx.generators.json.BomJsonGenerator;
import org.cyclonedx.model.Bom;
import org.cyclonedx.model.Component;
import org.cyclonedx.model.Dependency;
import org.cyclonedx.model.DependencyList;
import org.cyclonedx.model.Metadata;
import org.cyclonedx.model.Property;
import org.cyclonedx.model.component.crypto.AlgorithmProperties;
import org.cyclonedx.model.component.crypto.CryptoProperties;
import org.cyclonedx.model.component.crypto.enums.AssetType;
import org.cyclonedx.model.metadata.ToolInformation;
import org.cyclonedx.util.serializer.DependencySerializer;

/**
 * A CycloneDX 1.6 JSON document written while results arrive. Every part of it is serialized by the CycloneDX
 * library (its model classes and its version-aware ObjectMapper, the one {@link BomJsonGenerator} configures): the
 * header from a BOM holding only the metadata, and each component and dependency straight from the library's model
 * object. This class only places the parts: components go out as they come, dependencies wait in a temporary file
 * until the components array is closed. Memory holds the set of algorithm bom-refs written (at most
 * {@value #MAX_ALGORITHMS}), nothing per target.
 *
 * <p>Two costs of the library are avoided without changing a byte of the output: a batch is not first turned into a
 * JSON tree (half the CPU of a million-target CBOM), and strings pass through {@link CbomStrings} (the library's
 * {@code TrimStringSerializer} compiles a regular expression for every string). {@link #openViaBom} keeps the
 * library's own path (each batch as a BOM, through a tree, its string serializer) as the reference the tests compare
 * against.
 */
public final class CbomWriter implements AutoCloseable {
    /** Distinct algorithms described (hostile servers can invent names): later ones are counted, not described. */
    public static final int MAX_ALGORITHMS = 4096;
    public static final String TOOL_VERSION = "0.1.0";

    private final OutputStream out;
    private final ObjectMapper mapper;
    /** The library's mapper, without its flush after every value (one flush per component would be a write(2) each). */
    private final ObjectWriter json;
    private final JsonGenerator g;
    private final Path depsFile;
    private final OutputStream depsOut;
    private final JsonGenerator deps;
    private final Set<String> algorithms = new HashSet<>();
    /** The library's own path: each batch serialized as a BOM through a JSON tree (the tests' reference). */
    private final boolean viaBom;
    private long omittedAlgorithms;
    private boolean finished;

    /**
     * Shared {@link CryptoProperties} instances (one per distinct KEXINIT, see {@link #share}) and their JSON as the
     * library rendered them the first time: later components write those bytes again instead of the ~40 strings.
     */
    private final Map<CryptoProperties, SerializedString> shared = new IdentityHashMap<>();
    private boolean rendering;
    /** Renders one dependency at a time through the library's own serializer (no JSON tree between). */
    private final DependencySerializer dependencySerializer = new DependencySerializer();
    private InsideArray dependencyGenerator;
    /** Dependency lists many targets begin with (one per distinct KEXINIT), rendered once. */
    private final Map<List<Dependency>, SerializedString> sharedRefs = new IdentityHashMap<>();

    /** Exposes the ObjectMapper that CycloneDX sets up for one schema version. */
    private static final class Generator extends BomJsonGenerator {
        Generator(Bom bom, CbomWriter owner) {
            super(bom, Version.VERSION_16);
            if (!owner.viaBom) {
                // before anything is serialized (the mapper caches the serializer it finds first for String), and
                // registered last, so it wins over the library's
                mapper.registerModule(CbomStrings.module());
                // the model's getters called through generated accessors: reflection was the largest single cost
                // of a million-target CBOM (JFR, 2026-12-06); the serializers, their order and output are the same
                mapper.registerModule(new com.fasterxml.jackson.module.blackbird.BlackbirdModule());
                mapper.registerModule(new SimpleModule("pqssh-cbom-shared").setSerializerModifier(
                        new BeanSerializerModifier() {
                            @Override
                            @SuppressWarnings("unchecked")
                            public JsonSerializer<?> modifySerializer(SerializationConfig config,
                                    BeanDescription bean, JsonSerializer<?> serializer) {
                                return bean.getBeanClass() == CryptoProperties.class
                                        ? owner.new SharedSerializer((JsonSerializer<Object>) serializer)
                                        : serializer;
                            }
                        }));
            }
        }

        ObjectMapper mapper() {
            return mapper;
        }
    }

    private CbomWriter(OutputStream out, String kind, boolean viaBom) throws IOException {
        this.out = out;
        this.viaBom = viaBom;
        Bom header = new Bom();
        header.setSerialNumber("urn:uuid:" + UUID.randomUUID());
        Metadata m = new Metadata();
        Component tool = new Component();
        tool.setType(Component.Type.APPLICATION);
        tool.setName("pqssh");
        tool.setVersion(TOOL_VERSION);
        ToolInformation tools = new ToolInformation();
        tools.setComponents(List.of(tool));
        m.setToolChoice(tools);
        m.setProperties(List.of(new Property("pqssh:report", kind)));
        header.setMetadata(m);
        Generator gen = new Generator(header, this);
        JsonNode head = gen.toJsonNode();
        if (head == null) {
            throw new IOException("CycloneDX could not serialize the BOM header");
        }
        this.mapper = gen.mapper();
        // the library's serializers (EvidenceSerializer, ...) write nested values through the mapper, which would
        // flush the output, a write(2), after each of them
        mapper.disable(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);
        this.json = mapper.writer().without(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);
        this.g = mapper.getFactory().createGenerator(out, JsonEncoding.UTF8);
        g.disable(StreamWriteFeature.AUTO_CLOSE_TARGET.mappedFeature());
        g.writeStartObject();
        for (Map.Entry<String, JsonNode> e : head.properties()) {
            g.writeFieldName(e.getKey());
            json.writeValue(g, e.getValue());
        }
        g.writeArrayFieldStart("components");
        this.depsFile = Files.createTempFile("pqssh-cbom-deps", ".json");
        // bytes, as the document: the library's serializer writes each dependency straight into this generator
        this.depsOut = new BufferedOutputStream(Files.newOutputStream(depsFile), 1 << 16);
        this.deps = mapper.getFactory().createGenerator(depsOut, JsonEncoding.UTF8);
        deps.writeStartArray();
    }

    /**
     * Writes a shared instance's JSON once and its bytes after that; any other instance goes to the library's
     * serializer as usual. The bytes are the library's: the first rendering is its serializer's output.
     */
    private final class SharedSerializer extends JsonSerializer<Object> {
        private final JsonSerializer<Object> library;

        SharedSerializer(JsonSerializer<Object> library) {
            this.library = library;
        }

        @Override
        public void serialize(Object value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            SerializedString text = rendering ? null : shared.get(value);
            if (text == null) {
                if (rendering || !shared.containsKey(value)) {
                    library.serialize(value, gen, provider);
                    return;
                }
                rendering = true;
                try {
                    // kept as its UTF-8 bytes, which the generator copies as they are
                    text = new SerializedString(json.writeValueAsString(value));
                } finally {
                    rendering = false;
                }
                shared.put((CryptoProperties) value, text);
            }
            gen.writeRawValue(text);
        }
    }

    /** False on the reference path ({@link #openViaBom}), where nothing is shared or cached. */
    boolean fast() {
        return !viaBom;
    }

    /**
     * {@code cp} will be written by many components and not changed again: its JSON is rendered once. The caller
     * bounds how many it shares at a time ({@link #unshare}).
     */
    void share(CryptoProperties cp) {
        shared.putIfAbsent(cp, null);
    }

    /** {@code cp} will not be written again: its rendering is dropped. */
    void unshare(CryptoProperties cp) {
        shared.remove(cp);
    }

    /** Algorithms that were only counted so far (see {@link #MAX_ALGORITHMS}). */
    long omitted() {
        return omittedAlgorithms;
    }

    /** Counts {@code n} more mentions of algorithms that are not described. */
    void countOmitted(long n) {
        omittedAlgorithms += n;
    }

    /** Starts a document; {@code kind} ({@code scan}, {@code audit}) goes into the metadata. */
    public static CbomWriter open(OutputStream out, String kind) throws IOException {
        return new CbomWriter(out, kind, false);
    }

    /** The same document made the library's slower way (see the class comment): the reference for tests. */
    static CbomWriter openViaBom(OutputStream out, String kind) throws IOException {
        return new CbomWriter(out, kind, true);
    }

    /** The bom-ref of an algorithm component. */
    public static String algorithmRef(String kind, String name) {
        return "crypto/" + kind + "/" + name;
    }

    /**
     * The bom-ref of the algorithm, adding its component to {@code batch} the first time it is seen; null when the
     * document already describes {@value #MAX_ALGORITHMS} algorithms (then it is only counted).
     */
    public String algorithm(String kind, String name, List<Component> batch) {
        String ref = algorithmRef(kind, name);
        if (algorithms.contains(ref)) {
            return ref;
        }
        if (algorithms.size() >= MAX_ALGORITHMS) {
            omittedAlgorithms++;
            return null;
        }
        algorithms.add(ref);
        batch.add(algorithmComponent(ref, SshCrypto.of(kind, name)));
        return ref;
    }

    private static Component algorithmComponent(String ref, SshCrypto c) {
        Component comp = new Component();
        comp.setType(Component.Type.CRYPTOGRAPHIC_ASSET);
        comp.setBomRef(ref);
        comp.setName(c.name());
        AlgorithmProperties a = new AlgorithmProperties();
        a.setPrimitive(c.primitive());
        a.setParameterSetIdentifier(c.parameterSet());
        a.setCurve(c.curve());
        a.setMode(c.mode());
        a.setCryptoFunctions(c.functions());
        a.setClassicalSecurityLevel(c.classicalLevel());
        a.setNistQuantumSecurityLevel(c.nistQuantumLevel());
        CryptoProperties cp = new CryptoProperties();
        cp.setAssetType(AssetType.ALGORITHM);
        cp.setAlgorithmProperties(a);
        cp.setOid(c.oid());
        comp.setCryptoProperties(cp);
        List<Property> props = new ArrayList<>();
        props.add(new Property("pqssh:ssh-algorithm-kind", c.kind()));
        String judged = c.kind().equals("key") ? null : judgeKind(c.kind());
        if (judged != null) {
            io.pqssh.inventory.scan.Algorithms.Weakness w = io.pqssh.inventory.scan.Algorithms.judge(judged,
                    c.name());
            if (w != null) {
                props.add(new Property("pqssh:weakness", w.severity() + ": " + w.reason()));
            }
        }
        comp.setProperties(props);
        return comp;
    }

    private static String judgeKind(String kind) {
        return switch (kind) {
            case "kex", "hostkey", "cipher", "mac" -> kind;
            default -> null;
        };
    }

    /** Writes a batch: its components now, its dependencies into the dependencies array. */
    public void write(List<Component> components, List<Dependency> dependencies) throws IOException {
        write(components, dependencies, List.of());
    }

    /**
     * As {@link #write(List, List)}; each dependency that begins with the elements of {@code shared} (a list many
     * targets begin with, not changed again) writes their refs as the library rendered them the first time.
     */
    void write(List<Component> components, List<Dependency> dependencies, List<Dependency> shared)
            throws IOException {
        if (components.isEmpty() && dependencies.isEmpty()) {
            return;
        }
        if (viaBom) {
            Bom batch = new Bom();
            batch.setComponents(components.isEmpty() ? null : components);
            ObjectNode node = mapper.valueToTree(batch);
            for (JsonNode c : node.path("components")) {
                g.writeRaw('\n');
                json.writeValue(g, c);
            }
        } else {
            for (Component c : components) {
                g.writeRaw('\n');
                json.writeValue(g, c);
            }
        }
        if (!dependencies.isEmpty()) {
            if (viaBom) {
                // the library writes a dependency differently at the top of the BOM than nested (a bare ref): the
                // reference path takes its BOM path, one small BOM per target through a JSON tree
                Bom batch = new Bom();
                batch.setDependencies(dependencies);
                for (JsonNode d : mapper.valueToTree(batch).path("dependencies")) {
                    deps.writeRaw('\n');
                    json.writeValue(deps, d);
                }
            } else {
                for (Dependency d : dependencies) {
                    deps.writeRaw('\n');
                    render(d, shared);
                }
            }
        }
    }

    /**
     * One top-level dependency as the library's DependencySerializer writes it inside the BOM's array, straight into
     * the dependencies array: the serializer writes an array around the list, which the document already has open.
     */
    private void render(Dependency d, List<Dependency> shared) throws IOException {
        if (dependencyGenerator == null) {
            dependencyGenerator = new InsideArray(deps);
        }
        InsideArray inside = dependencyGenerator;
        SerializedString prefix = null;
        if (!shared.isEmpty() && startsWith(d.getDependencies(), shared)) {
            prefix = sharedRefs.get(shared);
            if (prefix == null) {
                prefix = refs(shared);
                sharedRefs.put(shared, prefix);
            }
        }
        inside.outer = 0;
        inside.prefix = prefix;
        inside.skip = prefix == null ? 0 : shared.size();
        dependencySerializer.serialize(new DependencyList(List.of(d)), inside, mapper.getSerializerProviderInstance());
        if (inside.outer != 2 || inside.depth != 0 || inside.skip != 0) {
            throw new IOException("CycloneDX wrote an unexpected dependency form for " + d.getRef());
        }
    }

    private static boolean startsWith(List<Dependency> all, List<Dependency> prefix) {
        if (all == null || all.size() < prefix.size()) {
            return false;
        }
        for (int i = 0; i < prefix.size(); i++) {
            if (all.get(i) != prefix.get(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The refs of {@code uses} as the library's DependencySerializer writes them in a {@code dependsOn} array,
     * commas between, no brackets: {@code "crypto/kex/a","crypto/kex/b"}.
     */
    private SerializedString refs(List<Dependency> uses) throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        try (JsonGenerator one = mapper.getFactory().createGenerator(b, JsonEncoding.UTF8)) {
            Dependency probe = new Dependency("-");
            probe.setDependencies(uses);
            dependencySerializer.serialize(new DependencyList(List.of(probe)), one,
                    mapper.getSerializerProviderInstance());
        }
        String text = b.toString(java.nio.charset.StandardCharsets.UTF_8);
        String head = "[{\"ref\":\"-\",\"dependsOn\":[";
        if (!text.startsWith(head) || !text.endsWith("]}]")) {
            throw new IOException("CycloneDX wrote an unexpected dependency form: " + text);
        }
        return new SerializedString(text.substring(head.length(), text.length() - 3));
    }

    /** {@code uses} will not be written again: its rendering is dropped. */
    void forget(List<Dependency> uses) {
        sharedRefs.remove(uses);
    }

    /** Leaves out the outermost array a serializer writes; everything inside goes to the generator as it is. */
    private static final class InsideArray extends JsonGeneratorDelegate {
        int depth;
        /** Outermost array starts and ends seen: 2 for one array. */
        int outer;
        /** The rendered refs written instead of the first {@link #skip} refs of the dependsOn array, or null. */
        SerializedString prefix;
        int skip;

        InsideArray(JsonGenerator g) {
            super(g, false);
        }

        @Override
        public void writeStartArray() throws IOException {
            if (depth++ == 0) {
                outer++;
            } else {
                super.writeStartArray();
            }
        }

        @Override
        public void writeString(String text) throws IOException {
            if (skip > 0 && depth == 2) {
                if (prefix != null) {
                    // one raw value for all of them: the generator puts the comma before the next ref
                    delegate.writeRawValue(prefix);
                    prefix = null;
                }
                skip--;
                return;
            }
            super.writeString(text);
        }

        @Override
        public void writeEndArray() throws IOException {
            if (--depth == 0) {
                outer++;
            } else {
                super.writeEndArray();
            }
        }
    }

    /** Closes the components, copies the dependencies after them, adds the document properties, and flushes. */
    public void finish(List<Property> properties) throws IOException {
        finished = true;
        g.writeRaw('\n');
        g.writeEndArray();
        deps.writeRaw('\n');
        deps.writeEndArray();
        deps.close();
        depsOut.close();
        g.writeFieldName("dependencies");
        g.writeRawValue("");
        g.flush();
        Files.copy(depsFile, out);
        List<Property> all = new ArrayList<>(properties);
        if (omittedAlgorithms > 0) {
            all.add(new Property("pqssh:algorithms-not-described", Long.toString(omittedAlgorithms)));
        }
        if (!all.isEmpty()) {
            Bom tail = new Bom();
            tail.setProperties(all);
            JsonNode p = mapper.valueToTree(tail).path("properties");
            g.writeFieldName("properties");
            json.writeValue(g, p);
        }
        g.writeEndObject();
        g.writeRaw('\n');
        g.flush();
    }

    public boolean finished() {
        return finished;
    }

    @Override
    public void close() throws IOException {
        try {
            deps.close();
            depsOut.close();
            g.close();
        } finally {
            Files.deleteIfExists(depsFile);
        }
    }
}
