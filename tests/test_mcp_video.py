"""Video ingest over MCP: progress notifications in audio seconds, and cancellation that
stops the work and commits nothing."""

import anyio
import pytest
from mcp import Client

from tests.support import media
from tests.support.mcp import server_params
from tutorialbook.library import Library

SCRIPT = [
    "This lesson teaches you to sharpen a kitchen knife on a whetstone.",
    "Soak the stone in water for ten minutes before you start.",
    "Hold the blade at an angle of about fifteen degrees.",
    "Push the edge across the stone in smooth strokes from heel to tip.",
    "Always finish on the fine side of the stone to polish the edge.",
]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    path = tmp_path_factory.mktemp("media") / "knife.mp4"
    media.narrated_video(SCRIPT, path)
    return path


@pytest.mark.asyncio
async def test_progress_reports_audio_seconds(tmp_path, video):
    messages = []

    async def on_progress(done, total, message):
        messages.append(message)

    async with Client(server_params(tmp_path / "store")) as client:
        result = await client.call_tool("ingest_tutorial", {"source": str(video), "book": "kitchen"},
                                        progress_callback=on_progress)
        assert not result.is_error, result.content
        report = result.structured_content["tutorials"][0]
        assert report["skills_added"] >= 1 and report["stage_seconds"]["acquire"] > 0
    heard = [m for m in messages if "transcribing" in m]
    assert heard and heard[-1].endswith(f"{report['duration']:.0f}/{report['duration']:.0f} s of audio")
    assert messages[-1].endswith("done")


@pytest.mark.asyncio
async def test_cancelled_call_commits_nothing(tmp_path, video):
    store = tmp_path / "store"
    async with Client(server_params(store)) as client:
        started = anyio.Event()

        async def on_progress(done, total, message):
            if "transcribing" in message:
                started.set()

        async def ingest():
            await client.call_tool("ingest_tutorial", {"source": str(video), "book": "kitchen"},
                                   progress_callback=on_progress)

        with anyio.move_on_after(60):
            async with anyio.create_task_group() as group:
                group.start_soon(ingest)
                await started.wait()
                group.cancel_scope.cancel()
        await anyio.sleep(8)  # long enough for an uncancelled ingest of this clip to commit
        library = Library(store=str(store))
        assert library.store.count("tutorials") == 0 and library.store.count("skills") == 0
        # the server is still healthy and the same ingest now succeeds
        again = await client.call_tool("ingest_tutorial", {"source": str(video), "book": "kitchen"})
        assert not again.is_error and again.structured_content["tutorials"][0]["status"] == "added"
