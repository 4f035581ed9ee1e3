package org.rebalance.oracle;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.modern.ModernGroup;
import org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.TopicImage;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The parts of the {@code group} harness whose Kafka API differs between the releases the book runs
 * (3.9.2, 4.0.0, 4.1.0 and the pinned 4.3.1): one method per difference, each choosing at run time, by reflection
 * on the kafka-group-coordinator jar on the classpath, the form that release offers. {@link GroupKind} and
 * {@link GroupTopics} are compiled against 4.3.1 and touch no class that an older release lacks; everything else
 * they call ({@code GroupSpecImpl(members, subscriptionType, invertedMemberAssignment)},
 * {@code MemberSubscriptionAndAssignmentImpl(rackId, instanceId, subscribedTopicIds, memberAssignment)},
 * {@code Assignment(partitions)}, {@code MetadataDelta}, the assignors and the api interfaces) has the same
 * signature in all four.
 *
 * <ul>
 * <li>{@link #describer}: the constructor of {@code SubscribedTopicDescriberImpl}.
 *   <ul>
 *   <li>3.9.x: {@code SubscribedTopicDescriberImpl(Map<Uuid, TopicMetadata>)} with
 *       {@code TopicMetadata(Uuid id, String name, int numPartitions, Map<Integer, Set<String>> partitionRacks)};
 *   <li>4.0.x: the same map, {@code TopicMetadata(Uuid id, String name, int numPartitions)} (KAFKA-17578,
 *       apache/kafka#17233, removed {@code partitionRacks}; racks are then always empty);
 *   <li>4.1.x: {@code SubscribedTopicDescriberImpl(MetadataImage)} (KAFKA-17747, apache/kafka#19611, removed
 *       {@code TopicMetadata});
 *   <li>after 4.1 (4.3.1 here): {@code SubscribedTopicDescriberImpl(CoordinatorMetadataImage)}, given a
 *       {@code KRaftCoordinatorMetadataImage(MetadataImage)} of kafka-coordinator-common (KAFKA-19441,
 *       apache/kafka#20061).
 *   </ul>
 * <li>{@link #subscriptionType}: the value type of {@code ModernGroup.subscriptionType(Map, int)}'s map of
 *   subscribers per topic name: {@code Map<String, Integer>} in 3.9.x, {@code Map<String, SubscriptionCount>}
 *   from 4.0 (a class with fields {@code byNameCount}/{@code byRegexCount}, a record in 4.3.1; added with the
 *   regular-expression subscriptions of KAFKA-17593), each filled the way the group fills it
 *   ({@code Utils::incValue} in 3.9.x, {@code SubscriptionCount::incNameCount} from 4.0). The erased signature is
 *   the same, so the method is found by name and its map's generic value type tells the two apart.
 * </ul>
 * Each choice is made once, when this class is loaded, and fails with a message naming what was found when a
 * release offers neither form.
 */
final class GroupCompat {
    private static final String MODERN = "org.apache.kafka.coordinator.group.modern.";
    private static final String COORDINATOR_METADATA_IMAGE =
        "org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage";
    private static final String KRAFT_COORDINATOR_METADATA_IMAGE =
        "org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage";

    /** The describer of a metadata image, as this release's {@code SubscribedTopicDescriberImpl} is built. */
    private static final Function<MetadataImage, SubscribedTopicDescriber> DESCRIBER = describerFactory();
    /** The subscription type of a group, given each topic name's number of subscribing members. */
    private static final SubscriptionTypeFunction SUBSCRIPTION_TYPE = subscriptionTypeFunction();

    private GroupCompat() {
    }

    @FunctionalInterface
    private interface SubscriptionTypeFunction {
        SubscriptionType apply(Map<String, Integer> subscribersByName, int numberOfMembers);
    }

    /**
     * Kafka's {@code SubscribedTopicDescriberImpl} over {@code image}, in the form of the release on the classpath
     * (see the class comment). Up to 4.0 the describer holds {@code TopicMetadata} per topic id, made as
     * {@code ModernGroup.computeSubscriptionMetadata} makes it from the image's {@code TopicImage} (id, name,
     * number of partitions and, in 3.9, a rack map with an entry only for partitions whose replicas have racks:
     * none here) and keyed by id as {@code TargetAssignmentBuilder.build} keys it; {@code topicIds} are the topics
     * put in it (the coordinator puts only the subscribed ones, but the describer is only asked about those).
     */
    static SubscribedTopicDescriber describer(MetadataImage image, Iterable<Uuid> topicIds) {
        if (DESCRIBER != null) {
            return DESCRIBER.apply(image);
        }
        return topicMetadataDescriber(image, topicIds);
    }

    /**
     * Kafka's {@code ModernGroup.subscriptionType} for a group of {@code numberOfMembers} members whose topic names
     * have {@code subscribersByName} subscribers each (every member counted once per topic).
     */
    static SubscriptionType subscriptionType(Map<String, Integer> subscribersByName, int numberOfMembers) {
        return SUBSCRIPTION_TYPE.apply(subscribersByName, numberOfMembers);
    }

    /** From 4.1: the image itself (4.1.x) or wrapped (later); null when the release wants a topic map. */
    private static Function<MetadataImage, SubscribedTopicDescriber> describerFactory() {
        Constructor<?>[] constructors = SubscribedTopicDescriberImpl.class.getConstructors();
        for (Constructor<?> ctor : constructors) {
            Class<?>[] params = ctor.getParameterTypes();
            if (params.length != 1) {
                continue;
            }
            if (params[0].getName().equals(COORDINATOR_METADATA_IMAGE)) {
                Constructor<?> wrap = constructor(KRAFT_COORDINATOR_METADATA_IMAGE, MetadataImage.class);
                return image -> (SubscribedTopicDescriber) newInstance(ctor, newInstance(wrap, image));
            }
            if (params[0] == MetadataImage.class) {
                return image -> (SubscribedTopicDescriber) newInstance(ctor, image);
            }
            if (params[0] == Map.class) {
                return null;
            }
        }
        throw unsupported("SubscribedTopicDescriberImpl", constructors);
    }

    /** 3.9.x and 4.0.x: {@code new SubscribedTopicDescriberImpl(Map<Uuid, TopicMetadata>)}. */
    private static SubscribedTopicDescriber topicMetadataDescriber(MetadataImage image, Iterable<Uuid> topicIds) {
        Constructor<?> describer;
        try {
            describer = SubscribedTopicDescriberImpl.class.getConstructor(Map.class);
        } catch (NoSuchMethodException e) {
            throw unsupported("SubscribedTopicDescriberImpl", SubscribedTopicDescriberImpl.class.getConstructors());
        }
        Class<?> topicMetadata = load(MODERN + "TopicMetadata");
        Constructor<?> withRacks = null;
        Constructor<?> withoutRacks = null;
        for (Constructor<?> ctor : topicMetadata.getConstructors()) {
            Class<?>[] p = ctor.getParameterTypes();
            if (p.length == 4 && p[0] == Uuid.class && p[1] == String.class && p[2] == int.class && p[3] == Map.class) {
                withRacks = ctor;       // 3.9.x
            } else if (p.length == 3 && p[0] == Uuid.class && p[1] == String.class && p[2] == int.class) {
                withoutRacks = ctor;    // 4.0.x
            }
        }
        if (withRacks == null && withoutRacks == null) {
            throw unsupported("TopicMetadata", topicMetadata.getConstructors());
        }
        Map<Uuid, Object> byId = new HashMap<>();
        for (Uuid id : topicIds) {
            TopicImage topic = image.topics().getTopic(id);
            if (topic == null) {
                continue;
            }
            Object metadata = withoutRacks != null
                ? newInstance(withoutRacks, topic.id(), topic.name(), topic.partitions().size())
                : newInstance(withRacks, topic.id(), topic.name(), topic.partitions().size(), new HashMap<>());
            byId.put(topic.id(), metadata);
        }
        return (SubscribedTopicDescriber) newInstance(describer, byId);
    }

    /** {@code ModernGroup.subscriptionType} over {@code SubscriptionCount}s (4.0 on) or {@code Integer}s (3.9.x). */
    private static SubscriptionTypeFunction subscriptionTypeFunction() {
        Method method;
        try {
            method = ModernGroup.class.getMethod("subscriptionType", Map.class, int.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("this kafka-group-coordinator has no ModernGroup.subscriptionType(Map, int)");
        }
        Type param = method.getGenericParameterTypes()[0];
        Type value = param instanceof ParameterizedType p ? p.getActualTypeArguments()[1] : null;
        if (value == Integer.class) {
            return (counts, members) -> (SubscriptionType) invoke(method, Collections.unmodifiableMap(counts), members);
        }
        if (value instanceof Class<?> c && c.getName().equals(MODERN + "SubscriptionCount")) {
            Method incNameCount;
            try {
                incNameCount = c.getMethod("incNameCount", String.class, c);
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException("this kafka-group-coordinator's SubscriptionCount has no incNameCount");
            }
            return (counts, members) -> {
                Map<String, Object> byName = new HashMap<>();
                counts.forEach((topic, n) -> {
                    for (int i = 0; i < n; i++) {
                        byName.compute(topic, (key, count) -> invoke(incNameCount, key, count));
                    }
                });
                return (SubscriptionType) invoke(method, byName, members);
            };
        }
        throw new IllegalStateException("ModernGroup.subscriptionType takes " + param
            + "; GroupCompat knows Map<String, Integer> (3.9) and Map<String, SubscriptionCount> (4.0 on)");
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, true, GroupCompat.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(name + " is not on the classpath", e);
        }
    }

    private static Constructor<?> constructor(String className, Class<?>... params) {
        try {
            return load(className).getConstructor(params);
        } catch (NoSuchMethodException e) {
            throw unsupported(className, load(className).getConstructors());
        }
    }

    private static Object newInstance(Constructor<?> ctor, Object... args) {
        try {
            return ctor.newInstance(args);
        } catch (InvocationTargetException e) {
            throw rethrow(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot call " + ctor, e);
        }
    }

    private static Object invoke(Method method, Object... args) {
        try {
            return method.invoke(null, args);
        } catch (InvocationTargetException e) {
            throw rethrow(e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot call " + method, e);
        }
    }

    /** What Kafka's code threw, unwrapped, so that a step's {@code error} reads as without reflection. */
    private static RuntimeException rethrow(InvocationTargetException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException r) {
            throw r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return new IllegalStateException(cause);
    }

    private static IllegalStateException unsupported(String what, Constructor<?>[] found) {
        StringBuilder names = new StringBuilder();
        for (Constructor<?> c : found) {
            names.append(names.length() == 0 ? "" : ", ").append(c.toGenericString());
        }
        return new IllegalStateException("GroupCompat does not know this release's " + what + " (constructors: "
            + names + ")");
    }
}
