import pytest
import torch

from bertology_lib.interventions import hooks as iv
from bertology_lib.models.registry import load_model, load_tokenizer


def test_project_out_changes_only_inside_the_block(tiny_bert_dir):
    m, tok = load_model(str(tiny_bert_dir), head="mlm"), load_tokenizer(str(tiny_bert_dir))
    enc = tok("the chef tipped the waiter", return_tensors="pt")
    seen = []
    # what block 1 actually receives (HF's hidden_states record outputs before our hook edits them)
    pre = iv.blocks(m)[1].register_forward_pre_hook(
        lambda mod, args, kw: seen.append(args[0] if args else kw["hidden_states"]), with_kwargs=True
    )
    with torch.no_grad():
        ref = m(**enc)
        d = m.config.hidden_size
        P = torch.zeros(d, d)  # remove everything
        with iv.project_out(m, 1, P):
            out = m(**enc)
        again = m(**enc)
    pre.remove()
    assert not torch.allclose(seen[0], torch.zeros_like(seen[0]))
    assert torch.allclose(seen[1], torch.zeros_like(seen[1]))
    assert not torch.allclose(out.logits, ref.logits)
    assert torch.allclose(again.logits, ref.logits)  # the hook is gone
    with torch.no_grad(), iv.project_out(m, 2, torch.eye(d)):
        assert torch.allclose(m(**enc).logits, ref.logits, atol=1e-5)  # identity changes nothing


def test_layer_range_and_blocks(tiny_bert_dir):
    m = load_model(str(tiny_bert_dir), head="mlm")
    assert len(iv.blocks(m)) == 2
    with pytest.raises(ValueError, match="layer=3 is out of range; allowed: 0..2"):
        with iv.project_out(m, 3, torch.eye(16)):
            pass
