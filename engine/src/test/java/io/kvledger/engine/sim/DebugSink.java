package io.kvledger.engine.sim;

import io.kvledger.engine.DocumentSink;
import io.kvledger.journal.EffectList;
import io.kvledger.journal.InputRecord;

import java.util.ArrayDeque;

/** Keeps the text of the last documents, for failure messages in tests. */
final class DebugSink implements DocumentSink
{
    private final ArrayDeque<String> last = new ArrayDeque<>();
    private final int keep;

    DebugSink(final int keep)
    {
        this.keep = keep;
    }

    @Override
    public void append(final InputRecord in, final int result, final EffectList e)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append('#').append(in.sequence()).append(' ').append(in.type()).append(" req=").append(in.request())
            .append(" op=").append(in.op()).append(" v=").append(in.value1()).append(',').append(in.value2())
            .append(" -> ").append(result).append('\n');
        for (int i = 0; i < e.size(); i++)
        {
            sb.append("    ").append(e.type(i)).append(" pool=").append(e.poolCode(i) == 255 ? "-" : e.pool(i).name())
                .append(" id=").append(e.id(i)).append(" ")
                .append(e.fromStateCode(i) == 255 ? "" : e.fromState(i).name())
                .append("->").append(e.toStateCode(i) == 255 ? "" : e.toState(i).name()).append(" owner=")
                .append(e.owner(i)).append(" v=").append(e.value1(i)).append(',').append(e.value2(i)).append('\n');
        }
        last.add(sb.toString());
        if (last.size() > keep)
        {
            last.poll();
        }
    }

    String dump()
    {
        return String.join("", last);
    }
}
