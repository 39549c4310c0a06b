import io

from langchain_reliable.cli import main
from langchain_reliable.demo import load_demo, recorded_model, run_demo


def test_demo_shows_every_route_offline():
    out = io.StringIO()
    results = run_demo(out=out)
    text = out.getvalue()
    assert "answers are RECORDED" in text
    assert [r["decision"] for r in results] == ["return", "return", "filter", "refuse"]
    assert [r["attempts"] for r in results] == [1, 2, 2, 2]
    assert "route: retry" in text
    assert "Note: 1 statement" in results[2]["answer"]
    assert "Felix Hoffmann" not in results[2]["answer"]


def test_recorded_model_replays_retry_answers():
    model = recorded_model()
    question = load_demo()["questions"][1]
    first = model.invoke(f"<question>{question['question']}</question>").content
    retry = model.invoke(
        f"A previous answer made statements ... <question>{question['question']}</question>"
    ).content
    assert (first, retry) == tuple(question["answers"])


def test_cli_demo_exit_code(capsys):
    assert main(["demo"]) == 0
    assert "decision: refuse" in capsys.readouterr().out
