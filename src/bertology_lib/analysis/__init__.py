"""Reading a model: activations, probes, cloze suites, attention, embeddings, similarity.

======================  =============================================================================
module                  holds
======================  =============================================================================
``activations``         one forward pass, every layer's word states and attention (cached)
``probing``             all-layer linear / MLP probes, control tasks, MDL, INLP
``word_probes``         probing every layer of several models for word-level gold labels
``structural_probe``    Hewitt & Manning's structural probes (distance and depth)
``cloze``               scoring minimal pairs with a masked LM, across checkpoints
``reconstruction``      reading the input back from every layer through the MLM head (Kao et al.)
``attention``           attention maps, head statistics, syntactic heads
``attention_heldout``   heads and layers chosen on validation sentences, scored on held-out ones
``embeddings``          anisotropy, self-similarity, sense clusters, pooling
``similarity``          linear CKA between layers and models
``latency``             CPU time per batch of several models, side by side
======================  =============================================================================

Functions take models and tensors and return tensors or DataFrames; they write nothing.
"""
