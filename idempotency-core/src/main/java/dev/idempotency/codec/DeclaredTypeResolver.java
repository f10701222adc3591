package dev.idempotency.codec;

import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.deser.SettableBeanProperty;
import tools.jackson.databind.type.TypeFactory;

import org.springframework.core.ResolvableType;

/**
 * Turns a declared result type into the Jackson {@link JavaType} that replays decode to,
 * rejecting types whose values could not be decoded to what the method returned.
 *
 * <p>
 * Rejected: {@code Object} as the whole type, type variables that the implementation
 * class does not resolve (bounded or not), unbounded wildcards and raw generic types.
 * {@code Object} as a type argument ({@code Map<String, Object>}) is accepted: it decodes
 * to plain JSON values (maps, lists, strings, numbers, booleans) and, since typing is
 * never enabled, never to a class named by the stored data.
 * <p>
 * Also rejected: an interface or abstract class (sealed or not), as the whole type or as
 * the element, value or content type of an array, collection, map or {@code Optional}, at
 * any depth, without polymorphic type information ({@code @JsonTypeInfo} on it, a
 * supertype or a mix-in) and that the codec's mapper does not decode itself, with a
 * default implementation (as {@code ArrayList} is for {@code List}), a deserializer (as
 * for {@code Number}, {@code CharSequence} or {@code JsonNode}, or one an application
 * registers) or a creator of the type's own. "Jackson builds it itself" is thus asked of
 * the mapper, not of a list: the containers and JDK types it decodes stay accepted
 * exactly as before; an application's own abstract type is accepted once it says how its
 * subtypes are told apart; and JDK interfaces it cannot decode at all ({@code Iterator},
 * {@code Comparable}, {@code Temporal}), whose every replay would fail, are rejected too.
 * <p>
 * {@code Serializable} and {@code Number} are rejected too, wherever they appear: Jackson
 * decodes the first to plain JSON values whatever was stored, and the second to an
 * {@code Integer}, {@code Long}, {@code BigInteger} or {@code Double}, so a
 * {@code BigDecimal} would lose digits and a {@code Long} come back an {@code Integer}.
 * <p>
 * The rule reaches into beans: the properties of a type the mapper decodes as a bean of
 * its own class (records included) are checked the same way, with type arguments resolved
 * ({@code Box<Shape>} checks {@code Shape}), through properties of properties, each bean
 * type once, so that cycles end. A property with type information of its own or
 * {@code @JsonDeserialize} is left to what the application chose. This happens once per
 * declared type, when the codec is prepared.
 * <p>
 * An abstract-type mapping or {@code @JsonDeserialize(as = …)} to one implementation is
 * not enough: every value would replay as that implementation, and a value returned as
 * the whole result is written by the declared type's serializer, with only the properties
 * the abstract type declares. Map keys, and type arguments of classes that are neither
 * containers nor beans, are not inspected.
 */
final class DeclaredTypeResolver {

	// Bounds the walk of a type whose properties expand it without end
	// (Node<T> holding a Node<List<T>>); what lies deeper is not inspected
	private static final int MAX_BEAN_TYPES = 256;

	private final TypeFactory typeFactory;

	DeclaredTypeResolver(TypeFactory typeFactory) {
		this.typeFactory = typeFactory;
	}

	/**
	 * Resolve a declared type.
	 * @param declared the declared type
	 * @param introspector how the codec's mapper decodes types
	 * @return the Jackson type
	 * @throws IllegalArgumentException when values of the type cannot be replayed safely
	 */
	JavaType resolve(ResolvableType declared, DecodingIntrospector introspector) {
		if (declared.resolve() == Object.class) {
			throw new IllegalArgumentException(
					"declared return type Object cannot be replayed safely; declare a concrete type");
		}
		JavaType type = toJavaType(declared, declared);
		requireBuildable(type, declared, introspector);
		return type;
	}

	private JavaType toJavaType(ResolvableType type, ResolvableType declared) {
		if (isUnresolvable(type)) {
			String kind = (type.getType() instanceof WildcardType) ? "wildcard" : "type variable";
			throw unsafe(declared, kind + " " + type.getType().getTypeName() + " cannot be resolved");
		}
		Class<?> resolved = type.resolve();
		if (resolved == null) {
			throw unsafe(declared, "type " + type.getType().getTypeName() + " cannot be resolved");
		}
		if (type.isArray()) {
			return this.typeFactory.constructArrayType(toJavaType(type.getComponentType(), declared));
		}
		ResolvableType[] generics = type.getGenerics();
		if (generics.length == 0) {
			return this.typeFactory.constructType(resolved);
		}
		if (type.getType() instanceof Class<?>) {
			// A raw List would decode its elements to maps, whatever the method put in it
			throw unsafe(declared, "raw type " + resolved.getName() + " has no type arguments");
		}
		JavaType[] arguments = new JavaType[generics.length];
		for (int i = 0; i < generics.length; i++) {
			arguments[i] = toJavaType(generics[i], declared);
		}
		return this.typeFactory.constructParametricType(resolved, arguments);
	}

	private static void requireBuildable(JavaType type, ResolvableType declared, DecodingIntrospector introspector) {
		requireBuildable(type, "", declared, introspector, new HashSet<>());
	}

	/**
	 * Apply the rule to a type, the content of its containers and, when the mapper
	 * decodes it as a bean, the types of its properties, each bean type once.
	 * @param where how the type was reached, empty for the declared type itself
	 * @param seen the bean types already walked, which ends cycles
	 */
	private static void requireBuildable(JavaType type, String where, ResolvableType declared,
			DecodingIntrospector introspector, Set<JavaType> seen) {
		JavaType content = DecodingIntrospector.contentType(type);
		if (content != null) {
			requireBuildable(content, where, declared, introspector, seen);
			return;
		}
		Class<?> raw = type.getRawClass();
		if (DecodingIntrospector.isAbstract(raw) && !introspector.hasTypeInformation(type)
				&& introspector.cannotRestoreClass(type)) {
			String advice = (raw == Number.class) ? " such as BigDecimal, BigInteger, Long or Double"
					: isJdkType(raw) ? "" : ", or add @JsonTypeInfo to " + raw.getName();
			throw unsafe(declared, raw.getName() + where + " is " + kind(raw)
					+ " without polymorphic type information, so a replay could not restore the class the method "
					+ "returned", advice);
		}
		if (seen.size() >= MAX_BEAN_TYPES || !seen.add(type)) {
			return;
		}
		for (SettableBeanProperty property : introspector.decodedProperties(type)) {
			String path = ", the type of property '" + property.getName() + "' of " + type.toCanonical() + ",";
			requireBuildable(property.getType(), path, declared, introspector, seen);
		}
	}

	private static boolean isJdkType(Class<?> type) {
		String name = type.getName();
		return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.");
	}

	private static String kind(Class<?> type) {
		String kind = type.isInterface() ? "interface" : "abstract class";
		return (type.isSealed() ? "a sealed " : "an ") + kind;
	}

	/**
	 * Whether a type is a type variable the implementation class leaves unresolved, or a
	 * wildcard without bounds. {@code ResolvableType.resolve()} cannot tell: it falls
	 * back to a variable's bound, so an unresolved {@code T extends Receipt} would
	 * quietly decode a subclass as a {@code Receipt}. {@code hasResolvableGenerics()}
	 * checks exactly this of each type argument, and no more, so ask it of a one-argument
	 * wrapper.
	 */
	private static boolean isUnresolvable(ResolvableType type) {
		if (!(type.getType() instanceof TypeVariable<?>) && !(type.getType() instanceof WildcardType)) {
			return false;
		}
		return !ResolvableType.forClassWithGenerics(Optional.class, type).hasResolvableGenerics();
	}

	private static IllegalArgumentException unsafe(ResolvableType declared, String reason) {
		return unsafe(declared, reason, "");
	}

	private static IllegalArgumentException unsafe(ResolvableType declared, String reason, String moreAdvice) {
		return new IllegalArgumentException("declared return type " + declared.getType().getTypeName()
				+ " cannot be replayed safely: " + reason + "; declare a concrete type" + moreAdvice);
	}

}
