package dev.idempotency.codec;

import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Optional;

import tools.jackson.databind.JavaType;
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
 */
final class DeclaredTypeResolver {

	private final TypeFactory typeFactory;

	DeclaredTypeResolver(TypeFactory typeFactory) {
		this.typeFactory = typeFactory;
	}

	/**
	 * Resolve a declared type.
	 * @param declared the declared type
	 * @return the Jackson type
	 * @throws IllegalArgumentException when values of the type cannot be replayed safely
	 */
	JavaType resolve(ResolvableType declared) {
		if (declared.resolve() == Object.class) {
			throw new IllegalArgumentException(
					"declared return type Object cannot be replayed safely; declare a concrete type");
		}
		return toJavaType(declared, declared);
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
		return new IllegalArgumentException("declared return type " + declared.getType().getTypeName()
				+ " cannot be replayed safely: " + reason + "; declare a concrete type");
	}

}
