package io.kvledger.replay.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvledger.engine.effect.ResultCode;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;
import io.kvledger.journal.JournalHeader;
import io.kvledger.journal.JournalListener;
import io.kvledger.journal.JournalPosition;
import io.kvledger.journal.JournalPrinter;

import java.io.PrintWriter;

/**
 * {@code kvledger dump --json}: one JSON object per document (JSON lines) with every input field, the result code
 * and every effect. Fields come in a fixed order; enum columns that do not apply to an effect are left out.
 */
final class DumpJson implements JournalListener
{
    private final PrintWriter out;

    /**
     * @param out where the lines go.
     */
    DumpJson(final PrintWriter out)
    {
        this.out = out;
    }

    @Override
    public void onHeader(final JournalHeader header, final JournalPosition position)
    {
    }

    @Override
    public void onDocument(final InputRecord input, final int resultCode, final EffectList effects,
        final JournalPosition position)
    {
        out.println(Json.write(document(input, resultCode, effects)));
    }

    /**
     * @param input      the input.
     * @param resultCode its result.
     * @param effects    its effects.
     * @return {@code {"seq","timestampNs","type","request","op","ok","value1".."value5","pages","fingerprints",
     * "result","resultName","effects":[...]}}.
     */
    static ObjectNode document(final InputRecord input, final int resultCode, final EffectList effects)
    {
        final ObjectNode doc = Json.object();
        doc.put("seq", input.sequence());
        doc.put("timestampNs", input.timestampNs());
        doc.put("type", input.type().name());
        doc.put("request", input.request());
        doc.put("op", input.op());
        doc.put("ok", input.ok());
        doc.put("value1", input.value1());
        doc.put("value2", input.value2());
        doc.put("value3", input.value3());
        doc.put("value4", input.value4());
        doc.put("value5", input.value5());
        doc.put("pages", input.fingerprintCount());
        final ArrayNode fingerprints = doc.putArray("fingerprints");
        for (int i = 0; i < input.fingerprintCount(); i++)
        {
            fingerprints.add(hex16(input.fingerprintHi(i)) + hex16(input.fingerprintLo(i)));
        }
        doc.put("result", resultCode);
        doc.put("resultName", ResultCode.name(resultCode));
        final ArrayNode list = doc.putArray("effects");
        for (int i = 0; i < effects.size(); i++)
        {
            list.add(effect(effects, i));
        }
        return doc;
    }

    private static ObjectNode effect(final EffectList effects, final int i)
    {
        final ObjectNode e = Json.object();
        e.put("type", effects.type(i).name());
        code(e, "pool", effects.poolCode(i), effects.pool(i));
        code(e, "from", effects.fromStateCode(i), effects.fromState(i));
        code(e, "to", effects.toStateCode(i), effects.toState(i));
        code(e, "component", effects.componentCode(i), effects.component(i));
        code(e, "opKind", effects.opKindCode(i), effects.opKind(i));
        code(e, "role", effects.roleCode(i), effects.role(i));
        code(e, "reason", effects.reasonCode(i), effects.reason(i));
        code(e, "requestFrom", effects.requestFromCode(i), effects.requestFrom(i));
        code(e, "requestTo", effects.requestToCode(i), effects.requestTo(i));
        e.put("id", effects.id(i));
        e.put("owner", effects.owner(i));
        e.put("value1", effects.value1(i));
        e.put("value2", effects.value2(i));
        e.put("value3", effects.value3(i));
        e.put("text", JournalPrinter.describeEffect(effects, i));
        return e;
    }

    private static void code(final ObjectNode node, final String name, final short code, final Enum<?> value)
    {
        if (EffectList.NULL_CODE != code)
        {
            node.put(name, null == value ? Short.toString(code) : value.name());
        }
    }

    private static String hex16(final long value)
    {
        final String digits = Long.toHexString(value);
        return "0000000000000000".substring(digits.length()) + digits;
    }
}
