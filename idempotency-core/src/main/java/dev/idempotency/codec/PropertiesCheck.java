package dev.idempotency.codec;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.List;

import tools.jackson.databind.ser.BeanPropertyWriter;

/**
 * Checks the properties of a bean that can hold a value of another class than declared.
 */
final class PropertiesCheck extends SubclassCheck {

	private final Property[] properties;

	/**
	 * Create the check of a bean's properties.
	 * @param properties the properties to check, none other
	 */
	PropertiesCheck(List<Property> properties) {
		this.properties = properties.toArray(Property[]::new);
	}

	@Override
	void check(Object value) {
		for (Property property : this.properties) {
			property.check(value);
		}
	}

	/**
	 * One property of a bean, read as the mapper read it to write it.
	 */
	static final class Property {

		private final BeanPropertyWriter writer;

		private final SubclassCheck check;

		Property(BeanPropertyWriter writer, SubclassCheck check) {
			this.writer = writer;
			this.check = check;
		}

		void check(Object bean) {
			Object value;
			try {
				value = this.writer.get(bean);
			}
			catch (RuntimeException ex) {
				throw ex;
			}
			catch (Exception ex) {
				throw new UndeclaredThrowableException(ex);
			}
			if (value != null) {
				this.check.check(value);
			}
		}

	}

}
