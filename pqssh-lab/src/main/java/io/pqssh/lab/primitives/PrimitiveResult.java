package io.pqssh.lab.primitives;

import com.fasterxml.jackson.annotation.JsonProperty;

/** One row of primitives.json. */
public record PrimitiveResult(
        @JsonProperty("algorithm") String algorithm,
        @JsonProperty("provider") String provider,
        @JsonProperty("operation") String operation,
        @JsonProperty("median_us") double medianUs,
        @JsonProperty("p90_us") double p90Us,
        @JsonProperty("mean_us") double meanUs,
        @JsonProperty("n") long n,
        @JsonProperty("public_key_bytes") int publicKeyBytes,
        @JsonProperty("output_bytes") int outputBytes,
        @JsonProperty("output_kind") String outputKind,
        @JsonProperty("published_us") Double publishedUs,
        @JsonProperty("published_source") String publishedSource) {
}
