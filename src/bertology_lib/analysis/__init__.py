"""Reading a model: activations, probes, cloze suites, attention, embeddings, similarity.

========================  =============================================================================
module                    holds
========================  =============================================================================
``activations``           one forward pass, every layer's word states and attention (cached)
``probing``               all-layer linear / MLP probes, control tasks, MDL, INLP
``word_probes``           probing every layer of several models for word-level gold labels
``structural_probe``      Hewitt & Manning's structural probes (distance and depth)
``cloze``                 scoring minimal pairs with a masked LM, across checkpoints
``reconstruction``        reading the input back from every layer through the MLM head (Kao et al.)
``attention``             attention maps, head statistics, syntactic heads
``attention_heldout``     heads and layers chosen on validation sentences, scored on held-out ones
``attention_layers``      attention to [CLS], [SEP] and punctuation by layer (Clark et al. Fig. 2)
``attention_gradients``   attention to [SEP] as a no-op: much attention, little gradient (Clark et al.)
``attention_norms``       the norm of what each head adds, ‖α f(x)‖ (Kobayashi et al. 2020)
``coref_heads``           is there a coreference head? (Clark et al. §4.2/§5)
``heldout``               a probe's layer chosen on validation items, scored once on test items
``structural_heldout``    the structural probe held out: UUAS per test sentence
``perturbed_masking``     how much hiding word j changes the view of word i (Wu et al. 2020)
``mlm_strength``          a masked LM beside n-gram, unigram and random-init references
``ngram_cloze``           a two-sided n-gram choosing a cloze item's filler (counts of the training text)
``numeracy``              number magnitude probes in and beyond the training range (Wallace et al. 2019)
``embeddings``            anisotropy, self-similarity, sense clusters, pooling
``ethayarajh_code``       MEV as Ethayarajh's released code computes it, beside the paper's equation
``similarity``            linear CKA between layers and models
``latency``               CPU time per batch of several models, side by side
========================  =============================================================================

Functions take models and tensors and return tensors or DataFrames; they write nothing.
"""
