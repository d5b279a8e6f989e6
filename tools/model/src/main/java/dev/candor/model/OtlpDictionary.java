package dev.candor.model;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Function;
import io.opentelemetry.proto.profiles.v1development.KeyValueAndUnit;
import io.opentelemetry.proto.profiles.v1development.Line;
import io.opentelemetry.proto.profiles.v1development.Link;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Mapping;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Stack;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tables of an OTLP {@code ProfilesDictionary}, filled as the writer goes: each item once (the
 * proto asks for no duplicates), referenced by its index. Index 0 of every table is the zero
 * value, as the proto requires, so that an index of 0 means "not set". Generated messages compare
 * by value, so they are their own keys.
 */
final class OtlpDictionary {
    private final Table<String> strings = new Table<>("");
    private final Table<Function> functions = new Table<>(Function.getDefaultInstance());
    private final Table<Location> locations = new Table<>(Location.getDefaultInstance());
    private final Table<Stack> stacks = new Table<>(Stack.getDefaultInstance());
    private final Table<KeyValueAndUnit> attributes = new Table<>(KeyValueAndUnit.getDefaultInstance());

    /** Index of a string in string_table. */
    int string(String s) {
        return strings.index(s);
    }

    /** Index of a function (its display name, its system name) in function_table. */
    int function(String name, String systemName) {
        return functions.index(Function.newBuilder().setNameStrindex(string(name))
                .setSystemNameStrindex(string(systemName)).build());
    }

    /** Index of a location of one line of a function, with attribute indices, in location_table. */
    int location(int function, long line, List<Integer> attributeIndices) {
        return locations.index(Location.newBuilder()
                .addLines(Line.newBuilder().setFunctionIndex(function).setLine(line))
                .addAllAttributeIndices(attributeIndices).build());
    }

    /** Index of a stack (location indices, leaf first) in stack_table. */
    int stack(List<Integer> locationIndicesLeafFirst) {
        return stacks.index(Stack.newBuilder().addAllLocationIndices(locationIndicesLeafFirst).build());
    }

    int attribute(String key, String value) {
        return attribute(key, AnyValue.newBuilder().setStringValue(value).build());
    }

    int attribute(String key, long value) {
        return attribute(key, AnyValue.newBuilder().setIntValue(value).build());
    }

    int attribute(String key, boolean value) {
        return attribute(key, AnyValue.newBuilder().setBoolValue(value).build());
    }

    private int attribute(String key, AnyValue value) {
        return attributes.index(KeyValueAndUnit.newBuilder().setKeyStrindex(string(key)).setValue(value).build());
    }

    ProfilesDictionary build() {
        return ProfilesDictionary.newBuilder()
                // candor has no address ranges nor trace links: only the zero items the proto requires;
                // the link one with ids of full length, as the proto recommends for strict codecs
                .addMappingTable(Mapping.getDefaultInstance())
                .addLinkTable(Link.newBuilder().setTraceId(ByteString.copyFrom(new byte[16]))
                        .setSpanId(ByteString.copyFrom(new byte[8])))
                .addAllStringTable(strings.items)
                .addAllFunctionTable(functions.items)
                .addAllLocationTable(locations.items)
                .addAllStackTable(stacks.items)
                .addAllAttributeTable(attributes.items)
                .build();
    }

    /** Items in index order, and the index of each. */
    private static final class Table<T> {
        final List<T> items = new ArrayList<>();
        final Map<T, Integer> indices = new HashMap<>();

        Table(T zero) {
            index(zero);
        }

        int index(T item) {
            Integer i = indices.get(item);
            if (i == null) {
                i = items.size();
                items.add(item);
                indices.put(item, i);
            }
            return i;
        }
    }
}
