/* -*- c++ -*- */
/*
 * Copyright 2026 gr-beamform authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pmt_values.h"
#include <stdexcept>

namespace gr {
namespace beamform {

namespace {

//! one(x) for each element of a tuple, a PMT vector or a list (both halves of a
//! cons pair), or for \p v itself when it is none of these.
template <typename F>
void for_each_element(const pmt::pmt_t& v, F one)
{
    if (pmt::is_tuple(v)) {
        for (size_t i = 0; i < pmt::length(v); i++)
            one(pmt::tuple_ref(v, i));
    } else if (pmt::is_vector(v)) {
        for (size_t i = 0; i < pmt::length(v); i++)
            one(pmt::vector_ref(v, i));
    } else if (pmt::is_pair(v)) {
        if (pmt::is_null(pmt::cdr(v)) || pmt::is_pair(pmt::cdr(v))) {
            for (size_t i = 0; i < pmt::length(v); i++)
                one(pmt::nth(i, v));
        } else { // a cons (a . b)
            one(pmt::car(v));
            one(pmt::cdr(v));
        }
    } else {
        one(v);
    }
}

} // namespace

std::vector<double> reals_from_pmt(const pmt::pmt_t& v, const std::string& key)
{
    if (pmt::is_f64vector(v))
        return pmt::f64vector_elements(v);
    std::vector<double> out;
    if (pmt::is_f32vector(v)) {
        for (float x : pmt::f32vector_elements(v))
            out.push_back(x);
        return out;
    }
    for_each_element(v, [&](const pmt::pmt_t& x) {
        if (!pmt::is_real(x) && !pmt::is_integer(x))
            throw std::invalid_argument("message key \"" + key +
                                        "\" must hold real numbers");
        out.push_back(pmt::to_double(x));
    });
    return out;
}

std::vector<std::complex<float>> complexes_from_pmt(const pmt::pmt_t& v,
                                                    const std::string& key)
{
    if (pmt::is_c32vector(v))
        return pmt::c32vector_elements(v);
    std::vector<std::complex<float>> out;
    if (pmt::is_c64vector(v)) {
        for (const auto& x : pmt::c64vector_elements(v))
            out.push_back(std::complex<float>(x));
    } else if (pmt::is_f32vector(v) || pmt::is_f64vector(v)) {
        for (double x : reals_from_pmt(v, key))
            out.push_back(std::complex<float>(float(x), 0.0f));
    } else {
        for_each_element(v, [&](const pmt::pmt_t& x) {
            if (!pmt::is_number(x))
                throw std::invalid_argument("message key \"" + key +
                                            "\" must hold numbers");
            out.push_back(std::complex<float>(pmt::to_complex(x)));
        });
    }
    return out;
}

} // namespace beamform
} // namespace gr
