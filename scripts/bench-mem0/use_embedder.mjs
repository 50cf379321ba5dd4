// SPDX-License-Identifier: Apache-2.0
// use_embedder.mjs -- Universal Sentence Encoder lite, read from the local
// model directory (model.json, group1-shard*of*, vocab.json: the files
// scripts/fetch-model.sh puts in models/use-lite, the same ones agentmem's
// use-lite embedder reads), run with @tensorflow/tfjs on the pure-JS CPU
// backend.  The object has the two methods of a LangChain Embeddings
// (embedQuery, embedDocuments), which is what mem0's "langchain" embedder
// provider takes.
//
// Input as agentmem's encoder builds it: the SentencePiece tokenizer of
// @tensorflow-models/universal-sentence-encoder (NFKC, U+2581 for spaces and
// one in front, Viterbi over vocab.json), the first 128 ids kept; the graph
// takes a sparse batch (indices [n, 2] = (sentence, position), values [n]).
//
// Backend: "wasm" (@tensorflow/tfjs-backend-wasm, SIMD, one thread; no native
// addon) by default, or "cpu" (pure JavaScript, ~20x slower here).
import fs from "node:fs/promises";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import { setThreadsCount } from "@tensorflow/tfjs-backend-wasm";
import { Tokenizer } from "@tensorflow-models/universal-sentence-encoder";

const MAX_TOKENS = 128; // agentmem: AM__USE_MAX_TOKENS

// The wasm backend of tfjs 3.21 lacks SparseToDense, one node of this graph
// (it scatters the token ids into a dense [sentences, tokens] matrix): a
// plain loop over the (small) inputs, registered for wasm only.
function sparseToDenseWasm({ inputs, backend, attrs }) {
  const { sparseIndices, sparseValues, defaultValue } = inputs;
  const shape = Array.from(attrs.outputShape);
  const idx = backend.readSync(sparseIndices.dataId);
  const vals = backend.readSync(sparseValues.dataId);
  const dflt = backend.readSync(defaultValue.dataId)[0];
  const out = backend.makeOutput(shape, sparseValues.dtype);
  const dst = backend.typedArrayFromHeap(out);
  dst.fill(dflt);
  const n = sparseIndices.shape.length > 0 ? sparseIndices.shape[0] : 1;
  const rank = sparseIndices.shape.length > 1 ? sparseIndices.shape[1] : 1;
  const strides = new Array(rank).fill(1);
  for (let d = rank - 2; d >= 0; d--) strides[d] = strides[d + 1] * shape[d + 1];
  for (let i = 0; i < n; i++) {
    let flat = 0;
    for (let d = 0; d < rank; d++) flat += idx[i * rank + d] * strides[d];
    dst[flat] = vals.length === 1 ? vals[0] : vals[i];
  }
  return out;
}

// An IOHandler that hands tfjs the graph and the concatenated weight shards
// from disk (tfjs's own file:// loader needs tfjs-node, a native addon).
function localHandler(dir) {
  return {
    async load() {
      const model = JSON.parse(await fs.readFile(path.join(dir, "model.json"), "utf8"));
      const specs = [];
      const parts = [];
      for (const group of model.weightsManifest) {
        specs.push(...group.weights);
        for (const p of group.paths) parts.push(await fs.readFile(path.join(dir, p)));
      }
      const all = Buffer.concat(parts);
      const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
      return {
        modelTopology: model.modelTopology,
        weightSpecs: specs,
        weightData,
        format: model.format,
        generatedBy: model.generatedBy,
        convertedBy: model.convertedBy,
      };
    },
  };
}

export class UseLiteEmbeddings {
  static async load(dir, backend = "wasm") {
    if (backend === "wasm") {
      setThreadsCount(1);
      if (!tf.getKernel("SparseToDense", "wasm"))
        tf.registerKernel({ kernelName: "SparseToDense", backendName: "wasm", kernelFunc: sparseToDenseWasm });
    }
    if (!(await tf.setBackend(backend))) throw new Error(`tfjs backend ${backend} unavailable`);
    await tf.ready();
    const graph = await tf.loadGraphModel(localHandler(dir));
    const vocab = JSON.parse(await fs.readFile(path.join(dir, "vocab.json"), "utf8"));
    return new UseLiteEmbeddings(graph, new Tokenizer(vocab));
  }

  constructor(graph, tokenizer) {
    this.graph = graph;
    this.tokenizer = tokenizer;
    this.dim = 512;
  }

  tokenize(text) {
    return this.tokenizer.encode(text).slice(0, MAX_TOKENS);
  }

  async embedDocuments(texts) {
    if (!texts.length) return [];
    const idx = [];
    const vals = [];
    texts.forEach((t, i) => {
      this.tokenize(t).forEach((id, j) => {
        idx.push([i, j]);
        vals.push(id);
      });
    });
    // An empty text has no tokens; the graph pools over what it gets.
    const indices = tf.tensor2d(idx.length ? idx : [[0, 0]], [Math.max(idx.length, 1), 2], "int32");
    const values = tf.tensor1d(vals.length ? vals : [0], "int32");
    const out = await this.graph.executeAsync({ indices, values });
    const rows = await out.array();
    indices.dispose();
    values.dispose();
    out.dispose();
    return rows.slice(0, texts.length);
  }

  async embedQuery(text) {
    return (await this.embedDocuments([text]))[0];
  }
}
