package dev.candor.itest;

import io.opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.profiles.v1development.Location;
import io.opentelemetry.proto.profiles.v1development.Profile;
import io.opentelemetry.proto.profiles.v1development.ProfilesDictionary;
import io.opentelemetry.proto.profiles.v1development.Sample;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** An OTLP profiles message, parsed by the official classes, with its dictionary indices resolved. */
record OtlpMessage(ExportProfilesServiceRequest request) {

    static OtlpMessage parse(byte[] bytes) throws java.io.IOException {
        return new OtlpMessage(ExportProfilesServiceRequest.parseFrom(bytes));
    }

    ProfilesDictionary dict() {
        return request.getDictionary();
    }

    /** service.name of the one resource. */
    String service() {
        assertEquals(1, request.getResourceProfilesCount());
        var attrs = request.getResourceProfiles(0).getResource().getAttributesList();
        return attrs.stream().filter(kv -> kv.getKey().equals("service.name")).findFirst()
                .map(kv -> kv.getValue().getStringValue()).orElse(null);
    }

    /** The i-th profile of the one resource and scope. */
    Profile profile(int i) {
        assertEquals(1, request.getResourceProfilesCount());
        assertEquals(1, request.getResourceProfiles(0).getScopeProfilesCount());
        return request.getResourceProfiles(0).getScopeProfiles(0).getProfiles(i);
    }

    /** The one profile of a message that must hold exactly one. */
    Profile onlyProfile() {
        Profile p = profile(0);
        assertEquals(1, request.getResourceProfiles(0).getScopeProfiles(0).getProfilesCount());
        return p;
    }

    String string(int i) {
        return dict().getStringTable(i);
    }

    String name(Location l) {
        return string(dict().getFunctionTable(l.getLines(0).getFunctionIndex()).getNameStrindex());
    }

    /** Function names of the sample's stack, leaf first. */
    List<String> names(Sample s) {
        return locations(s).stream().map(this::name).toList();
    }

    /** The sample's locations, leaf first. */
    List<Location> locations(Sample s) {
        return dict().getStackTable(s.getStackIndex()).getLocationIndicesList().stream()
                .map(i -> dict().getLocationTable(i)).toList();
    }

    Map<String, AnyValue> attributes(List<Integer> indices) {
        Map<String, AnyValue> out = new HashMap<>();
        for (int i : indices) {
            var kv = dict().getAttributeTable(i);
            out.put(string(kv.getKeyStrindex()), kv.getValue());
        }
        return out;
    }

    /** profile.frame.type of a location (jvm, native, kernel), or null. */
    String frameType(Location l) {
        AnyValue v = attributes(l.getAttributeIndicesList()).get("profile.frame.type");
        return v == null ? null : v.getStringValue();
    }

    /** profile.frame.type of the first location of a function. */
    String frameType(String function) {
        for (Location l : dict().getLocationTableList()) {
            if (l.getLinesCount() > 0 && name(l).equals(function)) {
                return frameType(l);
            }
        }
        return null;
    }
}
