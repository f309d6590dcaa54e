package io.kvledger.replay.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvledger.journal.codec.Component;
import io.kvledger.journal.codec.EffectType;
import io.kvledger.journal.codec.InputType;
import io.kvledger.journal.codec.Pool;
import io.kvledger.journal.codec.RequestState;
import io.kvledger.replay.report.CheckReport;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static io.kvledger.journal.codec.SlotState.REQUEST;
import static io.kvledger.replay.check.JournalFixture.KV;
import static io.kvledger.replay.check.JournalFixture.MAMBA;
import static io.kvledger.replay.check.Scenarios.R1;
import static io.kvledger.replay.check.Scenarios.R2;
import static io.kvledger.replay.check.Scenarios.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Timelines, inspection, statistics and the rendered check reports.
 */
class ReportsTest
{
    /** The fields of a check report in JSON, in order. */
    private static final List<String> CHECK_FIELDS =
        List.of("documents", "checkedDocuments", "stopped", "clean", "violations");

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Bug 2: S freed at #6 while load 102 is queued, given to request 2 at #8, load launched at #9. */
    private static JournalFixture bug2()
    {
        final JournalFixture f = new JournalFixture();
        Scenarios.staged(f);
        Scenarios.admit(f, true);
        f.doc(InputType.RETRACT).request(R1)
            .free(MAMBA, S, REQUEST, R1).free(MAMBA, 1, REQUEST, R1).free(KV, 2, REQUEST, R1)
            .unlocked(1, Component.FULL, REQUEST, R1, 2)
            .state(R1, RequestState.ADMITTED, RequestState.WAITING);
        f.doc(InputType.ARRIVE).request(R2);
        f.doc(InputType.ADMIT).request(R2).reserved(R2, 2, 0)
            .alloc(MAMBA, S, REQUEST, R2).alloc(MAMBA, 5, REQUEST, R2).reset(S).reset(5)
            .admitted(R2, -1, 0, 0, -1).state(R2, RequestState.WAITING, RequestState.ADMITTED);
        Scenarios.launch(f);
        return f;
    }

    @Test
    void shouldListEverySlotEffectWithTheOwnerAfterIt()
    {
        final SlotTimeline timeline = SlotTimeline.parse("mamba:0");
        bug2().feed(timeline);

        final List<SlotTimeline.Entry> entries = timeline.entries();
        assertEquals("DEVICE_MAMBA:0", timeline.subject());
        assertEquals(7, entries.size());
        assertEquals("REQUEST 1", entries.get(0).ownerAfter());
        assertEquals("FREE", entries.get(3).ownerAfter());
        assertEquals(6, entries.get(3).sequence());
        assertEquals("REQUEST 2", entries.get(6).ownerAfter());
        assertTrue(entries.get(6).effect().startsWith("OP_LAUNCHED op=102"), entries.get(6).effect());
        assertTrue(timeline.toText().contains("#6 SLOT_TRANSITION DEVICE_MAMBA:0 REQUEST(1) -> FREE => FREE"),
            timeline.toText());
    }

    @Test
    void shouldFollowANodeThroughItsLife()
    {
        final SlotTimeline timeline = SlotTimeline.parse("node:1");
        Scenarios.fullPath().feed(timeline);

        final List<SlotTimeline.Entry> entries = timeline.entries();
        assertTrue(entries.get(0).effect().startsWith("NODE_INSERTED node=1 "), entries.get(0).effect());
        assertTrue(entries.get(0).ownerAfter().startsWith("live parent 0 pages 2"), entries.get(0).ownerAfter());
        assertTrue(entries.stream().anyMatch(e -> e.effect().startsWith("UNLOCKED node=1 ")));
    }

    @Test
    void shouldRenderTimelineJsonWithEntries() throws Exception
    {
        final SlotTimeline timeline = SlotTimeline.forSlot(Pool.HOST_KV, 2);
        Scenarios.fullPath().feed(timeline);

        final JsonNode json = MAPPER.readTree(timeline.toJson());
        assertEquals("HOST_KV:2", json.get("subject").asText());
        // alloc, target, launch, ack of the backup; hand-over to the store; its target, launch, ack; free
        assertEquals(9, json.get("entries").size());
        assertEquals("OP 104", json.get("entries").get(4).get("ownerAfter").asText());
        assertEquals("FREE", json.get("entries").get(8).get("ownerAfter").asText());
    }

    @Test
    void shouldRefuseAnUnreadableTimelineSubject()
    {
        assertThrows(IllegalArgumentException.class, () -> SlotTimeline.parse("gpu:3"));
        assertThrows(IllegalArgumentException.class, () -> SlotTimeline.parse("mamba"));
        // one colon too many is a bad id, not an unknown pool named 'mamba:1'
        final IllegalArgumentException twoColons =
            assertThrows(IllegalArgumentException.class, () -> SlotTimeline.parse("mamba:1:2"));
        assertEquals("bad id in 'mamba:1:2'", twoColons.getMessage());
        final SlotTimeline outside = SlotTimeline.parse("mamba:99");
        assertThrows(IllegalArgumentException.class, () -> bug2().feed(outside));
    }

    @Test
    void shouldInspectTheStateAtASequence() throws Exception
    {
        final Inspector inspector = new Inspector(6);
        bug2().feed(inspector);

        assertTrue(inspector.done());
        assertEquals(6, inspector.appliedSequence());
        assertEquals(1, inspector.inflightOps().size());
        final OpView load = inspector.inflightOps().get(0);
        assertEquals(102, load.id());
        assertEquals("QUEUED", load.state());
        assertTrue(load.targets().contains("WRITE DEVICE_MAMBA:0 (FREE)"), load.targets().toString());
        final PoolOccupancy mamba = inspector.pools().get(Pool.DEVICE_MAMBA.value());
        assertEquals(new PoolOccupancy("DEVICE_MAMBA", 8, 7, 0, 1, 0, 0), mamba);
        assertEquals(List.of(new RequestView(1, "WAITING", 6, List.of())), inspector.requests());
        assertEquals(2, inspector.tree().nodeCount());
        assertEquals(1, inspector.violations().size());
        assertTrue(inspector.toText().contains("op 102 LOAD QUEUED owner 1"), inspector.toText());
        final JsonNode json = MAPPER.readTree(inspector.toJson());
        assertEquals(6, json.get("appliedSequence").asLong());
        assertEquals(7, json.get("pools").get(1).get("free").asInt());
    }

    @Test
    void shouldCountInputsEffectsAndOutcomes() throws Exception
    {
        final JournalFixture f = Scenarios.fullPath();
        f.doc(InputType.TICK).evicted(2, Component.MAMBA);
        final JournalStats stats = new JournalStats();
        f.feed(stats);

        assertEquals(12, stats.documents());
        assertEquals(3, stats.inputs(InputType.ACK));
        assertEquals(5, stats.effects(EffectType.OP_QUEUED));
        assertEquals(1, stats.loads());
        assertEquals(2, stats.loadedPages());
        assertEquals(2, stats.stagedPages());
        assertEquals(1, stats.evictions());
        assertEquals(11_000_000, stats.durationNs());
        assertEquals(12L, stats.resultCodes().get(0));
        final JsonNode json = MAPPER.readTree(stats.toJson());
        assertEquals(1, json.get("opsQueued").get("LOAD").asInt());
        assertEquals(1, json.get("evictions").get("MAMBA").asInt());
        assertTrue(stats.toText().contains("loads 1 (acked 1"), stats.toText());
    }

    @Test
    void shouldRenderViolationsAsTextWithTheirHistory()
    {
        final InvariantChecker checker = bug2().check();

        final String text = CheckReport.of(checker).toText();

        assertTrue(text.startsWith("checked 9 documents of fixture: 2 violations\n"), text);
        assertTrue(text.contains("\n#6 I13 DEVICE_MAMBA:0 freed while LOAD 102"), text);
        assertTrue(text.contains("\n    #6 SLOT_TRANSITION DEVICE_MAMBA:0 REQUEST(1) -> FREE\n"), text);
    }

    @Test
    void shouldRenderJsonWithTheExactFieldNames() throws Exception
    {
        final InvariantChecker checker = bug2().check();

        final JsonNode json = MAPPER.readTree(CheckReport.of(checker).toJson());

        assertEquals(CHECK_FIELDS, names(json));
        assertEquals(9, json.get("documents").asLong());
        assertFalse(json.get("clean").asBoolean());
        final JsonNode first = json.get("violations").get(0);
        assertEquals(List.of("seq", "invariant", "pool", "id", "explanation", "history"), names(first));
        assertEquals(6, first.get("seq").asLong());
        assertEquals("I13", first.get("invariant").asText());
        assertEquals("DEVICE_MAMBA", first.get("pool").asText());
        assertEquals(0, first.get("id").asLong());
        assertEquals(List.of("seq", "effect"), names(first.get("history").get(0)));
        assertEquals("SLOT_TRANSITION DEVICE_MAMBA:0 FREE -> REQUEST(1)",
            first.get("history").get(0).get("effect").asText());
    }

    @Test
    void shouldRenderACleanJournalAsCleanJson() throws Exception
    {
        final InvariantChecker checker = Scenarios.fullPath().check();

        final String json = CheckReport.of(checker).toJson();

        assertEquals("{\"documents\":11,\"checkedDocuments\":11,\"stopped\":false,\"clean\":true," +
            "\"violations\":[]}", json);
        assertEquals("checked 11 documents of fixture: clean\n", CheckReport.of(checker).toText());
    }

    @Test
    void shouldRenderASelfContainedHtmlPageWithAnSvgTimeline()
    {
        final InvariantChecker checker = bug2().check();

        final String html = CheckReport.of(checker, "incident <42>").toHtml();

        assertTrue(html.startsWith("<!DOCTYPE html>"), html);
        assertTrue(html.contains("<svg"), html);
        assertTrue(html.contains("<style>"), html);
        assertTrue(html.contains("incident &lt;42&gt;"), html);
        assertTrue(html.contains(">DEVICE_MAMBA:0</text>"), html);
        assertTrue(html.contains("violation at #6"), html);
        assertTrue(html.contains("violation at #9"), html);
        assertTrue(html.contains("REQUEST 2"), html);
        assertFalse(html.contains("http://") && html.replace("http://www.w3.org/2000/svg", "").contains("http://"),
            "no external resources");
        assertFalse(html.contains("<script"), html);
        assertFalse(html.contains("<link"), html);
        assertEquals(1, checker.lanes().size());
        assertEquals(List.of(6L, 9L), checker.lanes().get(0).violations());
    }

    @Test
    void shouldRenderHtmlForACleanJournal()
    {
        final String html = CheckReport.of(Scenarios.fullPath().check()).toHtml();

        assertTrue(html.contains("<svg"), html);
        assertTrue(html.contains("no invariant broke"), html);
    }

    private static List<String> names(final JsonNode node)
    {
        final List<String> names = new ArrayList<>();
        final Iterator<String> it = node.fieldNames();
        it.forEachRemaining(names::add);
        return names;
    }
}
