package io.kvledger.replay.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The command line's Jackson mapper: compact output, fields in insertion order. Thread-safe once built.
 */
final class Json
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json()
    {
    }

    static ObjectNode object()
    {
        return MAPPER.createObjectNode();
    }

    static ArrayNode array()
    {
        return MAPPER.createArrayNode();
    }

    static String write(final JsonNode node)
    {
        try
        {
            return MAPPER.writeValueAsString(node);
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot render JSON", ex);
        }
    }
}
